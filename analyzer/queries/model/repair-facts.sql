-- @name repair_facts
-- @description The tool call ids each history repair (afterstop.history.repair) of the traces just touched lists, one row per id (DuckDB: touched_traces, inserted into the store's repair_facts at ingest; ClickHouse: every trace read, the session's repair_facts), with the repair's conversation (the span's, else its run's). A repair may mend a call of another trace of its conversation: prepare-tool-outcomes.sql matches them.
-- @returns nothing; fills repair_facts
@store_insert(repair_facts)
SELECT s.run_id, s.trace_id, s.start_ns, coalesce(s.conversation_id, r.conversation_id) AS conversation_id, call_id
-- The repair spans first: the list of every span is not unnested (it was 17 times slower at 1M spans).
FROM (SELECT run_id, trace_id, start_ns, conversation_id, repair_call_ids FROM @assigned_spans
      WHERE name = 'afterstop.history.repair' AND @touched(trace_id)) AS s
JOIN run_facts AS r ON r.run_id = s.run_id
@array_join(s.repair_call_ids, call_id);
