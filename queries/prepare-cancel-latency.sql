-- Generated from queries/model/prepare-cancel-latency.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_cancel_latency
-- @description Cancel latency per run in the window (METRICS.md §1): ack_ms = A − C for a cancelled run with both markers; settle_ms = max(0, S − C) for a cancelled run, S being the settle marker or else the latest end of a tool or model span that started before C (a call that never ended is not in S; kept at ingest, cancel-span-facts.sql); milliseconds to 3 decimals, rounded half away from zero.
-- @returns nothing; creates report_cancel_latency (DuckDB: a temporary view, a projection of report_runs: a view costs less than the table it would write (1M spans: about 150 ms of the report); ClickHouse: a temporary table)
CREATE OR REPLACE TEMP VIEW report_cancel_latency AS
SELECT
  r.*,
  CASE WHEN r.has_request AND r.a_ns IS NOT NULL THEN round((r.a_ns - r.c_ns) / 1e6, 3) END AS ack_ms,
  CASE WHEN r.cancelled THEN round(greatest(0, coalesce(r.settle_marker_ns, q.quiet_end_ns, r.c_ns) - r.c_ns) / 1e6, 3) END AS settle_ms
FROM report_runs AS r LEFT JOIN cancel_span_facts AS q ON q.run_id = r.run_id
WHERE r.in_window;
