-- @name cancel_latency
-- @description Cancel latency (METRICS.md §1) per group and in total, from report_cancel_latency: distributions of ack_ms and settle_ms as nearest-rank percentiles, and the unacknowledged cancels (a request and no ack).
-- @returns service, agent, framework, total, ack_count, ack_p50, ack_p95, ack_p99, ack_max, settle_count, settle_p50, settle_p95, settle_p99, settle_max, unacknowledged_cancels
SELECT
  service, agent, framework, GROUPING(service, agent, framework) = 7 AS total,
  count(ack_ms) AS ack_count,
  nearest_rank(list(ack_ms) FILTER (WHERE ack_ms IS NOT NULL), 0.50) AS ack_p50,
  nearest_rank(list(ack_ms) FILTER (WHERE ack_ms IS NOT NULL), 0.95) AS ack_p95,
  nearest_rank(list(ack_ms) FILTER (WHERE ack_ms IS NOT NULL), 0.99) AS ack_p99,
  max(ack_ms) AS ack_max,
  count(settle_ms) AS settle_count,
  nearest_rank(list(settle_ms) FILTER (WHERE settle_ms IS NOT NULL), 0.50) AS settle_p50,
  nearest_rank(list(settle_ms) FILTER (WHERE settle_ms IS NOT NULL), 0.95) AS settle_p95,
  nearest_rank(list(settle_ms) FILTER (WHERE settle_ms IS NOT NULL), 0.99) AS settle_p99,
  max(settle_ms) AS settle_max,
  count(*) FILTER (WHERE has_request AND a_ns IS NULL) AS unacknowledged_cancels
FROM report_cancel_latency
GROUP BY GROUPING SETS ((service, agent, framework), ())
ORDER BY total, service, agent, framework;
