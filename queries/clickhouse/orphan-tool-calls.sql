-- @name orphan_tool_calls
-- @description ClickHouse: orphan tool calls (lost, not repaired), repaired ones and late results of the runs in the window, per group and in total, as DuckDB's orphan-tool-calls.sql.
-- @returns service, agent, framework, total, orphan_tool_calls, repaired_tool_calls, late_results
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  countIf(o.call_id IS NOT NULL AND o.lost AND NOT o.repaired) AS orphan_tool_calls,
  countIf(o.call_id IS NOT NULL AND o.lost AND o.repaired) AS repaired_tool_calls,
  countIf(o.call_id IS NOT NULL AND o.late) AS late_results
FROM report_runs AS r LEFT JOIN report_tool_outcomes AS o ON o.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
