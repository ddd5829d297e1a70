-- Generated from queries/model/prepare-cancel-latency.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_cancel_latency
-- @description Cancel latency per run in the window (METRICS.md §1): ack_ms = A − C for a cancelled run with both markers; settle_ms = max(0, S − C) for a cancelled run, S being the settle marker or else the latest end of a tool or model span that started before C (a call that never ended is not in S; kept at ingest, cancel-span-facts.sql); milliseconds to 3 decimals, rounded half away from zero.
-- @param since_ns BIGINT runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT runs that start before this time (NULL: no upper bound)
-- @returns nothing; creates report_cancel_latency, one row per cancelled run in the window, from cancel_span_facts alone (it carries the run's group, start, C, A and settle marker) (DuckDB: a temporary view: a view costs less than the table it would write (1M spans: about 150 ms of the report); ClickHouse: a temporary table)
-- @binds variables (a view takes no parameters: each is the session variable <query name>_<parameter>)
CREATE OR REPLACE TEMP VIEW report_cancel_latency AS
SELECT
  q.run_id, q.trace_id, q.service, q.agent, q.framework, q.run_start_ns AS start_ns, q.c_ns, q.a_ns, q.has_request,
  CASE WHEN q.has_request AND q.a_ns IS NOT NULL THEN round((q.a_ns - q.c_ns) / 1e6, 3) END AS ack_ms,
  round(greatest(0, coalesce(q.settle_marker_ns, q.quiet_end_ns, q.c_ns) - q.c_ns) / 1e6, 3) AS settle_ms
FROM cancel_span_facts AS q
WHERE ((getvariable('prepare_cancel_latency_since_ns') IS NULL OR q.run_start_ns >= getvariable('prepare_cancel_latency_since_ns')) AND (getvariable('prepare_cancel_latency_until_ns') IS NULL OR q.run_start_ns < getvariable('prepare_cancel_latency_until_ns')));
