-- @name cancel_depth_by_framework
-- @description ClickHouse: the cancel-depth scorecard per framework (cancelled runs in the window by depth), as DuckDB's cancel-depth-by-framework.sql.
-- @returns framework, cancelled_runs, depth_0, depth_1, depth_2, depth_3, depth_4
SELECT
  r.framework AS framework,
  count(d.run_id) AS cancelled_runs,
  countIf(d.depth = 0) AS depth_0,
  countIf(d.depth = 1) AS depth_1,
  countIf(d.depth = 2) AS depth_2,
  countIf(d.depth = 3) AS depth_3,
  countIf(d.depth = 4) AS depth_4
FROM report_runs AS r JOIN report_cancel_depth AS d ON d.run_id = r.run_id
WHERE r.in_window
GROUP BY r.framework
ORDER BY r.framework ASC NULLS LAST
