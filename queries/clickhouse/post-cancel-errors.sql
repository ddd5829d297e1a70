-- @name post_cancel_errors
-- @description ClickHouse: errors of the next run after a cancelled one (orphan tool call rejected, other) and cleanup errors after C, per group and in total, as DuckDB's post-cancel-errors.sql.
-- @returns service, agent, framework, total, orphan_tool_call_rejected, other, cleanup_errors
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  countIf(e.span_id IS NOT NULL AND e.cause = 'orphan_tool_call_rejected') AS orphan_tool_call_rejected,
  countIf(e.span_id IS NOT NULL AND e.cause = 'other') AS other,
  countIf(e.span_id IS NOT NULL AND e.kind = 'cleanup') AS cleanup_errors
FROM report_runs AS r LEFT JOIN report_post_cancel_errors AS e ON e.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
