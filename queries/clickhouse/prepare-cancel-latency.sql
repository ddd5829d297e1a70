-- @name prepare_cancel_latency
-- @description ClickHouse: report_cancel_latency, as DuckDB's prepare-cancel-latency.sql: for the runs in the window, ack (A − C, when the run has a cancel request) and settle (to the settle marker, else the end of the last tool or model call started before C, else 0) in milliseconds.
-- @returns nothing; creates the temporary table report_cancel_latency
CREATE OR REPLACE TEMPORARY TABLE report_cancel_latency ENGINE = Memory AS
WITH quiet AS (
  SELECT r.run_id AS run_id, max(s.end_ns) AS s_ns
  FROM report_runs AS r
  JOIN report_spans AS s ON s.run_id = r.run_id
  WHERE r.cancelled AND s.role IN ('tool', 'model') AND s.start_ns < r.c_ns
  GROUP BY r.run_id
)
SELECT
  r.*,
  -- rounded half away from zero to the microsecond, as DuckDB rounds
  if(r.has_request AND r.a_ns IS NOT NULL, sign(r.a_ns - r.c_ns) * floor(abs((r.a_ns - r.c_ns) / 1e6) * 1000 + 0.5) / 1000, NULL) AS ack_ms,
  if(r.cancelled, floor(greatest(0, coalesce(r.settle_marker_ns, q.s_ns, r.c_ns) - r.c_ns) / 1e6 * 1000 + 0.5) / 1000, NULL) AS settle_ms
FROM report_runs AS r LEFT JOIN quiet AS q ON q.run_id = r.run_id
WHERE r.in_window
