-- @name compensation_facts
-- @description The succeeded compensations (afterstop.tool.compensate, outcome succeeded) of the traces just touched, by the tool call id they name (DuckDB: touched_traces, inserted into the store's compensation_facts at ingest; ClickHouse: every trace read, the session's compensation_facts). A compensation may lie in another trace than its ghost commit: prepare-ghost-commits.sql matches them at report time.
-- @returns nothing; fills compensation_facts
@store_insert(compensation_facts)
SELECT DISTINCT tool_call_id, run_id, trace_id FROM @assigned_spans
WHERE @touched(trace_id) AND name = 'afterstop.tool.compensate' AND compensation_outcome = 'succeeded' AND tool_call_id IS NOT NULL;
