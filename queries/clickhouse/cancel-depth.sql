-- @name cancel_depth
-- @description ClickHouse: cancelled runs in the window by cancel depth (METRICS.md §8), per group and in total, as DuckDB's cancel-depth.sql.
-- @returns service, agent, framework, total, depth_0, depth_1, depth_2, depth_3, depth_4
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  countIf(d.run_id IS NOT NULL AND d.depth = 0) AS depth_0,
  countIf(d.run_id IS NOT NULL AND d.depth = 1) AS depth_1,
  countIf(d.run_id IS NOT NULL AND d.depth = 2) AS depth_2,
  countIf(d.run_id IS NOT NULL AND d.depth = 3) AS depth_3,
  countIf(d.run_id IS NOT NULL AND d.depth = 4) AS depth_4
FROM report_runs AS r LEFT JOIN report_cancel_depth AS d ON d.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
