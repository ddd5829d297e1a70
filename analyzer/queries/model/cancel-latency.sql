-- @name cancel_latency
-- @description Cancel latency (METRICS.md §1) per group and in total, from report_cancel_latency: distributions of ack_ms and settle_ms as nearest-rank percentiles, and the unacknowledged cancels (a request and no ack).
-- @returns rows (one per group and a total row)
-- @column service                text?
-- @column agent                  text?
-- @column framework              text?
-- @column total                  bool
-- @column ack_count              int
-- @column ack_p50                float?
-- @column ack_p95                float?
-- @column ack_p99                float?
-- @column ack_max                float?
-- @column settle_count           int
-- @column settle_p50             float?
-- @column settle_p95             float?
-- @column settle_p99             float?
-- @column settle_max             float?
-- @column unacknowledged_cancels int
SELECT
  l.service, l.agent, l.framework, GROUPING(l.service, l.agent, l.framework) = 7 AS total,
  count(l.ack_ms) AS ack_count,
  @nearest_ranks(l.ack_ms, 0.50, 0.95, 0.99)[1] AS ack_p50,
  @nearest_ranks(l.ack_ms, 0.50, 0.95, 0.99)[2] AS ack_p95,
  @nearest_ranks(l.ack_ms, 0.50, 0.95, 0.99)[3] AS ack_p99,
  max(l.ack_ms) AS ack_max,
  count(l.settle_ms) AS settle_count,
  @nearest_ranks(l.settle_ms, 0.50, 0.95, 0.99)[1] AS settle_p50,
  @nearest_ranks(l.settle_ms, 0.50, 0.95, 0.99)[2] AS settle_p95,
  @nearest_ranks(l.settle_ms, 0.50, 0.95, 0.99)[3] AS settle_p99,
  max(l.settle_ms) AS settle_max,
  count(*) FILTER (WHERE l.has_request AND l.a_ns IS NULL) AS unacknowledged_cancels
FROM (
  SELECT service, agent, framework, ack_ms, settle_ms, has_request, a_ns FROM report_cancel_latency
  UNION ALL
  -- Every group of the window's runs, with no cancelled run of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL, NULL, NULL FROM report_groups
) AS l
GROUP BY GROUPING SETS ((l.service, l.agent, l.framework), ())
ORDER BY total, l.service, l.agent, l.framework;
