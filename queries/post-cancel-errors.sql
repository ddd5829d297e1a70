-- Generated from queries/model/post-cancel-errors.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name post_cancel_errors
-- @description Post-cancel errors by cause, and cleanup errors (METRICS.md §5), per group (of the cancelled run) and in total, from report_post_cancel_errors.
-- @returns rows (one per group and a total row)
-- @column service                   text?
-- @column agent                     text?
-- @column framework                 text?
-- @column total                     bool
-- @column orphan_tool_call_rejected int
-- @column other                     int
-- @column cleanup_errors            int
SELECT
  r.service, r.agent, r.framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(e.span_id) FILTER (WHERE e.cause = 'orphan_tool_call_rejected') AS orphan_tool_call_rejected,
  count(e.span_id) FILTER (WHERE e.cause = 'other') AS other,
  count(e.span_id) FILTER (WHERE e.kind = 'cleanup') AS cleanup_errors
FROM report_runs AS r LEFT JOIN report_post_cancel_errors AS e ON e.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework;
