-- @name cancel_depth_by_framework
-- @description The cancel-depth scorecard per framework (METRICS.md §8), across services and agents: how many cancelled runs in the window reached each depth, from report_cancel_depth. A run without a known framework counts under NULL.
-- @returns rows
-- @column framework      text?
-- @column cancelled_runs int
-- @column depth_0        int
-- @column depth_1        int
-- @column depth_2        int
-- @column depth_3        int
-- @column depth_4        int
SELECT
  d.framework,
  count(d.run_id) AS cancelled_runs,
  count(d.run_id) FILTER (WHERE d.depth = 0) AS depth_0,
  count(d.run_id) FILTER (WHERE d.depth = 1) AS depth_1,
  count(d.run_id) FILTER (WHERE d.depth = 2) AS depth_2,
  count(d.run_id) FILTER (WHERE d.depth = 3) AS depth_3,
  count(d.run_id) FILTER (WHERE d.depth = 4) AS depth_4
FROM report_cancel_depth AS d
WHERE d.in_window
GROUP BY d.framework
ORDER BY d.framework NULLS LAST;
