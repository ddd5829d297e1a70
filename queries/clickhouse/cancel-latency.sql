-- @name cancel_latency
-- @description ClickHouse: cancel ack and settle latency (nearest-rank p50, p95, p99 and max, in ms) and unacknowledged cancels, per group and in total, as DuckDB's cancel-latency.sql.
-- @returns service, agent, framework, total, ack_count, ack_p50, ack_p95, ack_p99, ack_max, settle_count, settle_p50, settle_p95, settle_p99, settle_max, unacknowledged_cancels
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(r.ack_ms) AS ack_count,
  if(empty(groupArray(r.ack_ms)), NULL, arraySort(groupArray(r.ack_ms))[greatest(1, toUInt64(ceil(0.50 * length(groupArray(r.ack_ms)))))]) AS ack_p50,
  if(empty(groupArray(r.ack_ms)), NULL, arraySort(groupArray(r.ack_ms))[greatest(1, toUInt64(ceil(0.95 * length(groupArray(r.ack_ms)))))]) AS ack_p95,
  if(empty(groupArray(r.ack_ms)), NULL, arraySort(groupArray(r.ack_ms))[greatest(1, toUInt64(ceil(0.99 * length(groupArray(r.ack_ms)))))]) AS ack_p99,
  max(r.ack_ms) AS ack_max,
  count(r.settle_ms) AS settle_count,
  if(empty(groupArray(r.settle_ms)), NULL, arraySort(groupArray(r.settle_ms))[greatest(1, toUInt64(ceil(0.50 * length(groupArray(r.settle_ms)))))]) AS settle_p50,
  if(empty(groupArray(r.settle_ms)), NULL, arraySort(groupArray(r.settle_ms))[greatest(1, toUInt64(ceil(0.95 * length(groupArray(r.settle_ms)))))]) AS settle_p95,
  if(empty(groupArray(r.settle_ms)), NULL, arraySort(groupArray(r.settle_ms))[greatest(1, toUInt64(ceil(0.99 * length(groupArray(r.settle_ms)))))]) AS settle_p99,
  max(r.settle_ms) AS settle_max,
  countIf(r.has_request AND r.a_ns IS NULL) AS unacknowledged_cancels
FROM report_cancel_latency AS r
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
