-- Generated from queries/model/steering.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name steering
-- @description Steering health (METRICS.md §7) per group (of the enqueuing run) and in total, from steer_facts (steer-facts.sql): the inject latency distribution (nearest rank), dropped steers and injects inside a tool batch.
-- @returns rows (one per group and a total row)
-- @column service      text?
-- @column agent        text?
-- @column framework    text?
-- @column total        bool
-- @column inject_count int
-- @column inject_p50   float?
-- @column inject_p95   float?
-- @column inject_p99   float?
-- @column inject_max   float?
-- @column dropped      int
-- @column violations   int
SELECT
  r.service, r.agent, r.framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(t.inject_ms) AS inject_count,
  quantile_disc(t.inject_ms, [0.50, 0.95, 0.99])[1] AS inject_p50,
  quantile_disc(t.inject_ms, [0.50, 0.95, 0.99])[2] AS inject_p95,
  quantile_disc(t.inject_ms, [0.50, 0.95, 0.99])[3] AS inject_p99,
  max(t.inject_ms) AS inject_max,
  count(t.steer_id) FILTER (WHERE t.dropped) AS dropped,
  count(t.steer_id) FILTER (WHERE t.violation) AS violations
FROM report_runs AS r LEFT JOIN steer_facts AS t ON t.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework;
