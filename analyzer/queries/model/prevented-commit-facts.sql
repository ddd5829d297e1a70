-- @name prevented_commit_facts
-- @description The commits the guard's fence prevented (afterstop.tool.commit.prevented markers: a tool's mutating HTTP request made after its run was stopped, refused before anything was sent) of the runs of the traces just touched (DuckDB: touched_traces, inserted into the store's prevented_commit_facts at ingest; ClickHouse: every trace read, the session's prevented_commit_facts), one row each, with its tool and effect class.
-- @returns nothing; fills prevented_commit_facts
@store_insert(prevented_commit_facts)
SELECT run_id, trace_id, span_id, start_ns, tool_call_id, coalesce(tool_name, '(unnamed)') AS tool, coalesce(effect, 'unknown') AS effect
FROM @assigned_spans
WHERE name = 'afterstop.tool.commit.prevented' AND run_id IS NOT NULL AND @touched(trace_id);
