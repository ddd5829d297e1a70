-- @name cancel_latency
-- @description Cancel latency (METRICS.md §1) per group and in total, from report_cancel_latency: distributions of ack_ms and settle_ms as nearest-rank percentiles, and the unacknowledged cancels (a request and no ack).
-- @returns service, agent, framework, total, ack_count, ack_p50, ack_p95, ack_p99, ack_max, settle_count, settle_p50, settle_p95, settle_p99, settle_max, unacknowledged_cancels
SELECT
  l.service, l.agent, l.framework, GROUPING(l.service, l.agent, l.framework) = 7 AS total,
  count(l.ack_ms) AS ack_count,
  @nearest_rank(l.ack_ms, 0.50) AS ack_p50,
  @nearest_rank(l.ack_ms, 0.95) AS ack_p95,
  @nearest_rank(l.ack_ms, 0.99) AS ack_p99,
  max(l.ack_ms) AS ack_max,
  count(l.settle_ms) AS settle_count,
  @nearest_rank(l.settle_ms, 0.50) AS settle_p50,
  @nearest_rank(l.settle_ms, 0.95) AS settle_p95,
  @nearest_rank(l.settle_ms, 0.99) AS settle_p99,
  max(l.settle_ms) AS settle_max,
  count(*) FILTER (WHERE l.has_request AND l.a_ns IS NULL) AS unacknowledged_cancels
FROM report_cancel_latency AS l
GROUP BY GROUPING SETS ((l.service, l.agent, l.framework), ())
ORDER BY total, l.service, l.agent, l.framework;
