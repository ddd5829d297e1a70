-- @name steering
-- @description ClickHouse: steering health (inject latency nearest-rank percentiles in ms, dropped messages, violations), per group and in total, as DuckDB's steering.sql.
-- @returns service, agent, framework, total, inject_count, inject_p50, inject_p95, inject_p99, inject_max, dropped, violations
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(t.inject_ms) AS inject_count,
  if(empty(groupArray(t.inject_ms)), NULL, arraySort(groupArray(t.inject_ms))[greatest(1, toUInt64(ceil(0.50 * length(groupArray(t.inject_ms)))))]) AS inject_p50,
  if(empty(groupArray(t.inject_ms)), NULL, arraySort(groupArray(t.inject_ms))[greatest(1, toUInt64(ceil(0.95 * length(groupArray(t.inject_ms)))))]) AS inject_p95,
  if(empty(groupArray(t.inject_ms)), NULL, arraySort(groupArray(t.inject_ms))[greatest(1, toUInt64(ceil(0.99 * length(groupArray(t.inject_ms)))))]) AS inject_p99,
  max(t.inject_ms) AS inject_max,
  countIf(t.steer_id IS NOT NULL AND t.dropped) AS dropped,
  countIf(t.steer_id IS NOT NULL AND t.violation) AS violations
FROM report_runs AS r LEFT JOIN report_steers AS t ON t.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
