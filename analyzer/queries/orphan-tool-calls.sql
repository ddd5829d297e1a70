-- Generated from queries/model/orphan-tool-calls.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name orphan_tool_calls
-- @description Orphan tool calls (lost and not repaired), repaired tool calls and late results (METRICS.md §3), per group and in total, from report_tool_outcomes.
-- @returns rows (one per group and a total row)
-- @column service             text?
-- @column agent               text?
-- @column framework           text?
-- @column total               bool
-- @column orphan_tool_calls   int
-- @column repaired_tool_calls int
-- @column late_results        int
SELECT
  o.service, o.agent, o.framework, GROUPING(o.service, o.agent, o.framework) = 7 AS total,
  count(o.call_id) FILTER (WHERE o.lost AND NOT o.repaired) AS orphan_tool_calls,
  count(o.call_id) FILTER (WHERE o.lost AND o.repaired) AS repaired_tool_calls,
  count(o.call_id) FILTER (WHERE o.late) AS late_results
FROM (
  SELECT service, agent, framework, call_id, lost, repaired, late FROM report_tool_outcomes WHERE in_window
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL, NULL, NULL FROM report_groups
) AS o
GROUP BY GROUPING SETS ((o.service, o.agent, o.framework), ())
ORDER BY total, o.service, o.agent, o.framework;
