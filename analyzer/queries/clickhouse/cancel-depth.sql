-- Generated from queries/model/cancel-depth.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name cancel_depth
-- @description The cancel-depth scorecard (METRICS.md §8): how many cancelled runs reached each depth, per group and in total, from report_cancel_depth.
-- @returns rows (one per group and a total row)
-- @column service   text?
-- @column agent     text?
-- @column framework text?
-- @column total     bool
-- @column depth_0   int
-- @column depth_1   int
-- @column depth_2   int
-- @column depth_3   int
-- @column depth_4   int
SELECT
  d.service AS service, d.agent AS agent, d.framework AS framework, GROUPING(d.service, d.agent, d.framework) = 7 AS total,
  count(d.run_id) FILTER (WHERE d.depth = 0) AS depth_0,
  count(d.run_id) FILTER (WHERE d.depth = 1) AS depth_1,
  count(d.run_id) FILTER (WHERE d.depth = 2) AS depth_2,
  count(d.run_id) FILTER (WHERE d.depth = 3) AS depth_3,
  count(d.run_id) FILTER (WHERE d.depth = 4) AS depth_4
FROM (
  SELECT service, agent, framework, run_id, depth FROM report_cancel_depth WHERE in_window
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL FROM report_groups
) AS d
GROUP BY GROUPING SETS ((d.service, d.agent, d.framework), ())
ORDER BY total, d.service, d.agent, d.framework
