-- Generated from queries/model/orphan-process-facts.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name orphan_process_facts
-- @description The orphan processes (METRICS.md §9: afterstop.process.orphan markers, a child process still alive after its run ended plus the grace period) of the runs of the traces just touched (DuckDB: touched_traces, inserted into the store's orphan_process_facts at ingest; ClickHouse: every trace read, the session's orphan_process_facts).
-- @returns nothing; fills orphan_process_facts
CREATE OR REPLACE TEMPORARY TABLE orphan_process_facts AS
SELECT run_id, trace_id, span_id, start_ns, pid
FROM report_spans
WHERE name = 'afterstop.process.orphan' AND run_id IS NOT NULL AND true
