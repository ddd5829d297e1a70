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
  e.service, e.agent, e.framework, GROUPING(e.service, e.agent, e.framework) = 7 AS total,
  count(e.span_id) FILTER (WHERE e.cause = 'orphan_tool_call_rejected') AS orphan_tool_call_rejected,
  count(e.span_id) FILTER (WHERE e.cause = 'other') AS other,
  count(e.span_id) FILTER (WHERE e.kind = 'cleanup') AS cleanup_errors
FROM (
  SELECT r.service, r.agent, r.framework, x.span_id, x.cause, x.kind
  FROM report_post_cancel_errors AS x JOIN report_runs AS r ON r.run_id = x.run_id
  WHERE r.in_window
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL, NULL FROM report_groups
) AS e
GROUP BY GROUPING SETS ((e.service, e.agent, e.framework), ())
ORDER BY total, e.service, e.agent, e.framework;
