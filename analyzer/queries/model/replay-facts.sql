-- @name replay_facts
-- @description Replayed side effects (METRICS.md §6), one row per duplicate, from commit_facts: within one scope (conversation, or trace without one), a commit whose effect was already committed earlier by a different execution (another run or another tool call id), with the first run that committed it, and whether it was deduplicated: its HTTP request carried the idempotency key (afterstop.guard.idempotency_key) an earlier commit of the effect carried, to a host the user listed as honouring it. Several commits inside one execution are not replays. Recomputed for the scopes an ingest or a prune touched (DuckDB: touched_scopes, inserted into the store's replay_facts, so that a report reads them as they are; ClickHouse: every scope, the session's replay_facts).
-- @returns nothing; fills replay_facts
@store_insert(replay_facts)
WITH commits AS (
  SELECT * FROM commit_facts WHERE @touched_scope(scope)
),
-- Only an effect committed more than once in its scope can be a replay.
repeated AS (
  SELECT c.*
  FROM commits AS c
  JOIN (SELECT scope, effect_key FROM commits GROUP BY scope, effect_key HAVING count(*) > 1) AS m
    ON m.scope = c.scope AND m.effect_key = c.effect_key
),
-- The first run to commit the effect before each commit, by another execution (run, or tool call id).
earlier AS (
  SELECT c.trace_id, c.span_id, argMin(e.run_id, e.start_ns) AS first_run_id,
    -- It sent the key an earlier commit of the effect sent (the guard's header): a service that honours it did it once.
    max(CASE WHEN c.guard_key IS NOT NULL AND e.guard_key = c.guard_key THEN 1 ELSE 0 END) = 1 AS deduplicated
  FROM repeated AS c JOIN repeated AS e ON e.scope = c.scope AND e.effect_key = c.effect_key
  WHERE e.start_ns < c.start_ns
    AND (e.run_id <> c.run_id OR (e.tool_call_id IS NULL) <> (c.tool_call_id IS NULL) OR e.tool_call_id <> c.tool_call_id)
  GROUP BY c.trace_id, c.span_id
)
SELECT c.*, e.first_run_id, e.deduplicated
FROM repeated AS c JOIN earlier AS e ON e.trace_id = c.trace_id AND e.span_id = c.span_id;
