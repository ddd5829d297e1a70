-- @name cancel_latency
-- @description Cancel latency (METRICS.md §1): ack_ms = A − C per cancelled run with both markers; settle_ms = max(0, S − C) per cancelled run, S being the settle marker or else the latest end of a tool or model span that started before C (a call that never ended is not in S); unacknowledged cancels have a request and no ack. Distributions as nearest-rank percentiles, milliseconds to 3 decimals.
-- @returns service, agent, framework, total, ack_count, ack_p50, ack_p95, ack_p99, ack_max, settle_count, settle_p50, settle_p95, settle_p99, settle_max, unacknowledged_cancels
WITH quiet AS (
  SELECT r.run_id, max(s.end_ns) AS s_ns
  FROM report_runs r
  JOIN report_spans s ON s.run_id = r.run_id
  WHERE r.cancelled AND s.role IN ('tool', 'model') AND s.start_ns < r.c_ns
  GROUP BY r.run_id
),
per_run AS (
  SELECT
    r.*,
    CASE WHEN r.has_request AND r.a_ns IS NOT NULL THEN round((r.a_ns - r.c_ns) / 1e6, 3) END AS ack_ms,
    CASE WHEN r.cancelled THEN round(greatest(0, coalesce(r.settle_marker_ns, q.s_ns, r.c_ns) - r.c_ns) / 1e6, 3) END AS settle_ms
  FROM report_runs r LEFT JOIN quiet q ON q.run_id = r.run_id
  WHERE r.in_window
)
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
FROM per_run
GROUP BY GROUPING SETS ((service, agent, framework), ())
ORDER BY total, service, agent, framework;
