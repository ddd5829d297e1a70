-- @name commit_facts
-- @description The commits (afterstop.tool.commit) of the runs of the traces just touched (DuckDB: touched_traces, inserted into the store's commit_facts at ingest; ClickHouse: every trace read, the session's commit_facts), each with its scope (the span's conversation, else its run's, else its trace) and the effect it commits: its idempotency key, else tool name plus tool call id (the span id without one); and the idempotency key its HTTP request carried to a host the guard keys (afterstop.guard.idempotency_key), if any. A replayed effect's commits lie in several traces of one conversation: replay-facts.sql compares them.
-- @returns nothing; fills commit_facts
@store_insert(commit_facts)
SELECT s.run_id, s.trace_id, s.span_id, s.start_ns, s.tool_call_id, coalesce(s.tool_name, '(unnamed)') AS tool,
  coalesce(s.conversation_id, r.conversation_id, 'trace:' || s.trace_id) AS scope,
  coalesce(s.idempotency_key, coalesce(s.tool_name, '') || '/' || coalesce(s.tool_call_id, s.span_id)) AS effect_key,
  s.guard_key
FROM @assigned_spans AS s JOIN run_facts AS r ON r.run_id = s.run_id
WHERE s.name = 'afterstop.tool.commit' AND @touched(s.trace_id);
