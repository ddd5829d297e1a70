-- @name cancel_latency
-- @description ClickHouse: cancel ack and settle latency (nearest-rank p50, p95, p99 and max, in ms) and unacknowledged cancels, per group and in total, as DuckDB's cancel-latency.sql.
-- @returns service, agent, framework, total, ack_count, ack_p50, ack_p95, ack_p99, ack_max, settle_count, settle_p50, settle_p95, settle_p99, settle_max, unacknowledged_cancels (and the sorted lists and rank arrays the percentiles come from)
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(r.ack_ms) AS ack_count,
  -- Nearest-rank percentiles (METRICS.md): the value at rank ceil(p * n) of the sorted latencies, NULL for none.
  arraySort(groupArray(r.ack_ms)) AS acks_sorted,
  arrayMap(p -> if(empty(acks_sorted), NULL, acks_sorted[greatest(1, toUInt64(ceil(p * length(acks_sorted))))]), [0.50, 0.95, 0.99]) AS ack_ranks,
  ack_ranks[1] AS ack_p50,
  ack_ranks[2] AS ack_p95,
  ack_ranks[3] AS ack_p99,
  max(r.ack_ms) AS ack_max,
  count(r.settle_ms) AS settle_count,
  arraySort(groupArray(r.settle_ms)) AS settles_sorted,
  arrayMap(p -> if(empty(settles_sorted), NULL, settles_sorted[greatest(1, toUInt64(ceil(p * length(settles_sorted))))]), [0.50, 0.95, 0.99]) AS settle_ranks,
  settle_ranks[1] AS settle_p50,
  settle_ranks[2] AS settle_p95,
  settle_ranks[3] AS settle_p99,
  max(r.settle_ms) AS settle_max,
  countIf(r.has_request AND r.a_ns IS NULL) AS unacknowledged_cancels
FROM report_cancel_latency AS r
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
