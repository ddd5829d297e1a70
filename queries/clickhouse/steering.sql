-- @name steering
-- @description ClickHouse: steering health (inject latency nearest-rank percentiles in ms, dropped messages, violations), per group and in total, as DuckDB's steering.sql.
-- @returns service, agent, framework, total, inject_count, inject_p50, inject_p95, inject_p99, inject_max, dropped, violations (and the sorted list and rank array the percentiles come from)
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(t.inject_ms) AS inject_count,
  -- Nearest-rank percentiles (METRICS.md): the value at rank ceil(p * n) of the sorted latencies, NULL for none.
  arraySort(groupArray(t.inject_ms)) AS injects_sorted,
  arrayMap(p -> if(empty(injects_sorted), NULL, injects_sorted[greatest(1, toUInt64(ceil(p * length(injects_sorted))))]), [0.50, 0.95, 0.99]) AS inject_ranks,
  inject_ranks[1] AS inject_p50,
  inject_ranks[2] AS inject_p95,
  inject_ranks[3] AS inject_p99,
  max(t.inject_ms) AS inject_max,
  countIf(t.steer_id IS NOT NULL AND t.dropped) AS dropped,
  countIf(t.steer_id IS NOT NULL AND t.violation) AS violations
FROM report_runs AS r LEFT JOIN report_steers AS t ON t.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
