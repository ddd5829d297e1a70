-- Generated from queries/model/steering.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name steering
-- @description Steering health (METRICS.md §7) per group (of the enqueuing run) and in total, from steer_facts (steer-facts.sql): the inject latency distribution (nearest rank), dropped steers and injects inside a tool batch.
-- @param since_ns BIGINT runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT runs that start before this time (NULL: no upper bound)
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
  t.service, t.agent, t.framework, GROUPING(t.service, t.agent, t.framework) = 7 AS total,
  count(t.inject_ms) AS inject_count,
  quantile_disc(t.inject_ms, [0.50, 0.95, 0.99])[1] AS inject_p50,
  quantile_disc(t.inject_ms, [0.50, 0.95, 0.99])[2] AS inject_p95,
  quantile_disc(t.inject_ms, [0.50, 0.95, 0.99])[3] AS inject_p99,
  max(t.inject_ms) AS inject_max,
  count(t.steer_id) FILTER (WHERE t.dropped) AS dropped,
  count(t.steer_id) FILTER (WHERE t.violation) AS violations
FROM (
  -- The steers of runs in the window (steer-facts.sql keeps the enqueuing run's group and start).
  SELECT service, agent, framework, steer_id, inject_ms, dropped, violation FROM steer_facts WHERE (($since_ns IS NULL OR run_start_ns >= $since_ns) AND ($until_ns IS NULL OR run_start_ns < $until_ns))
  UNION ALL
  -- Every group of the window's runs, with no steer of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL, NULL, NULL FROM report_groups
) AS t
GROUP BY GROUPING SETS ((t.service, t.agent, t.framework), ())
ORDER BY total, t.service, t.agent, t.framework;
