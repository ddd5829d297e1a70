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
  r.service, r.agent, r.framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(o.call_id) FILTER (WHERE o.lost AND NOT o.repaired) AS orphan_tool_calls,
  count(o.call_id) FILTER (WHERE o.lost AND o.repaired) AS repaired_tool_calls,
  count(o.call_id) FILTER (WHERE o.late) AS late_results
FROM report_runs AS r LEFT JOIN report_tool_outcomes AS o ON o.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework;
