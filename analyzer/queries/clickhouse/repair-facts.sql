-- Generated from queries/model/repair-facts.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name repair_facts
-- @description The tool call ids each history repair (afterstop.history.repair) of the traces just touched lists, one row per id (DuckDB: touched_traces, inserted into the store's repair_facts at ingest; ClickHouse: every trace read, the session's repair_facts), with the repair's conversation (the span's, else its run's). A repair may mend a call of another trace of its conversation: prepare-tool-outcomes.sql matches them.
-- @returns nothing; fills repair_facts
CREATE OR REPLACE TEMPORARY TABLE repair_facts AS
SELECT s.run_id AS run_id, s.trace_id AS trace_id, s.start_ns AS start_ns, coalesce(s.conversation_id, r.conversation_id) AS conversation_id, call_id
-- The repair spans first: the list of every span is not unnested (it was 17 times slower at 1M spans).
FROM (SELECT run_id, trace_id, start_ns, conversation_id, repair_call_ids FROM report_spans
      WHERE name = 'afterstop.history.repair' AND true) AS s
JOIN run_facts AS r ON r.run_id = s.run_id
ARRAY JOIN s.repair_call_ids AS call_id
