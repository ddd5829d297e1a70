-- @name prepare_replays
-- @description ClickHouse: report_replays, as DuckDB's prepare-replays.sql: a commit of an effect (idempotency key, else tool and call) already committed earlier in the same scope (conversation, else trace) by another run or another call, with the first run that committed it.
-- @returns nothing; creates the temporary table report_replays
CREATE OR REPLACE TEMPORARY TABLE report_replays ENGINE = Memory AS
WITH commits AS (
  SELECT s.run_id AS run_id, s.trace_id AS trace_id, s.span_id AS span_id, s.start_ns AS start_ns, s.tool_call_id AS tool_call_id,
    coalesce(s.tool_name, '(unnamed)') AS tool,
    coalesce(s.conversation_id, r.conversation_id, concat('trace:', s.trace_id)) AS scope,
    coalesce(s.idempotency_key, concat(coalesce(s.tool_name, ''), '/', coalesce(s.tool_call_id, s.span_id))) AS effect_key
  FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
  WHERE s.name = 'afterstop.tool.commit'
),
repeated AS (
  SELECT * FROM commits
  WHERE (scope, effect_key) IN (SELECT scope, effect_key FROM commits GROUP BY scope, effect_key HAVING count() > 1)
),
earlier AS (
  SELECT c.trace_id AS trace_id, c.span_id AS span_id, argMin(e.run_id, e.start_ns) AS first_run_id
  FROM repeated AS c JOIN repeated AS e ON e.scope = c.scope AND e.effect_key = c.effect_key
  WHERE e.start_ns < c.start_ns
    AND (e.run_id != c.run_id OR (e.tool_call_id IS NULL) != (c.tool_call_id IS NULL) OR e.tool_call_id != c.tool_call_id)
  GROUP BY c.trace_id, c.span_id
)
SELECT c.*, e.first_run_id AS first_run_id
FROM repeated AS c JOIN earlier AS e ON e.trace_id = c.trace_id AND e.span_id = c.span_id
