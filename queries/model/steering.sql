-- @name steering
-- @description Steering health (METRICS.md §7) per group (of the enqueuing run) and in total, from report_steers: the inject latency distribution (nearest rank), dropped steers and injects inside a tool batch.
-- @returns service, agent, framework, total, inject_count, inject_p50, inject_p95, inject_p99, inject_max, dropped, violations
SELECT
  r.service, r.agent, r.framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(t.inject_ms) AS inject_count,
  @nearest_rank(t.inject_ms, 0.50) AS inject_p50,
  @nearest_rank(t.inject_ms, 0.95) AS inject_p95,
  @nearest_rank(t.inject_ms, 0.99) AS inject_p99,
  max(t.inject_ms) AS inject_max,
  count(t.steer_id) FILTER (WHERE t.dropped) AS dropped,
  count(t.steer_id) FILTER (WHERE t.violation) AS violations
FROM report_runs AS r LEFT JOIN report_steers AS t ON t.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework;
