-- @name prepare_replays
-- @description Replayed side effects (METRICS.md §6), one row per duplicate: within one conversation (or trace, without one), a commit whose idempotency key — or, without one, tool name plus tool call id — was already committed earlier by a different execution (another run or another tool call id), with the first run that committed it. Several commits inside one execution are not replays.
-- @returns nothing; creates the temporary table report_replays
CREATE OR REPLACE TEMPORARY TABLE report_replays AS
WITH commits AS (
  SELECT s.run_id, s.trace_id, s.span_id, s.start_ns, s.tool_call_id, coalesce(s.tool_name, '(unnamed)') AS tool,
    coalesce(s.conversation_id, r.conversation_id, 'trace:' || s.trace_id) AS scope,
    coalesce(s.idempotency_key, coalesce(s.tool_name, '') || '/' || coalesce(s.tool_call_id, s.span_id)) AS effect_key
  FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
  WHERE s.name = 'afterstop.tool.commit'
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
  SELECT c.trace_id, c.span_id, argMin(e.run_id, e.start_ns) AS first_run_id
  FROM repeated AS c JOIN repeated AS e ON e.scope = c.scope AND e.effect_key = c.effect_key
  WHERE e.start_ns < c.start_ns
    AND (e.run_id <> c.run_id OR (e.tool_call_id IS NULL) <> (c.tool_call_id IS NULL) OR e.tool_call_id <> c.tool_call_id)
  GROUP BY c.trace_id, c.span_id
)
SELECT c.*, e.first_run_id
FROM repeated AS c JOIN earlier AS e ON e.trace_id = c.trace_id AND e.span_id = c.span_id;
