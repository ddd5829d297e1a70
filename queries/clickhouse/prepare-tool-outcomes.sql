-- @name prepare_tool_outcomes
-- @description ClickHouse: report_tool_outcomes, as DuckDB's prepare-tool-outcomes.sql: for each tool call of a cancelled run, whether its result was lost to the conversation, late, and repaired (a history repair after C in the same conversation, or the same run when it has none).
-- @returns nothing; creates the temporary table report_tool_outcomes
CREATE OR REPLACE TEMPORARY TABLE report_tool_outcomes ENGINE = Memory AS
WITH repairs AS (
  SELECT s.run_id AS run_id, s.start_ns AS start_ns, coalesce(s.conversation_id, r.conversation_id) AS conversation_id, call_id
  FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
  ARRAY JOIN s.repair_call_ids AS call_id
  WHERE s.name = 'afterstop.history.repair'
),
outcomes AS (
  SELECT
    t.run_id AS run_id, t.trace_id AS trace_id, t.call_id AS call_id, coalesce(t.tool_name, '(unnamed)') AS tool, t.start_ns AS start_ns, t.end_ns AS end_ns, t.result AS result,
    t.kind != 'step' AND (NOT t.has_span OR t.end_ns IS NULL OR t.result IN ('late', 'dropped', 'cancelled') OR (r.a_ns IS NOT NULL AND t.end_ns > r.a_ns)) AS lost_raw,
    coalesce(t.result = 'late' OR (r.a_ns IS NOT NULL AND t.end_ns > r.a_ns), false) AS late,
    r.c_ns AS c_ns, r.conversation_id AS conversation_id
  FROM report_tool_calls AS t JOIN report_runs AS r ON r.run_id = t.run_id
  WHERE r.cancelled
),
-- What DuckDB asks with EXISTS, as a join (ClickHouse cannot correlate it).
repaired AS (
  SELECT DISTINCT o.run_id AS run_id, o.call_id AS call_id
  FROM outcomes AS o JOIN repairs AS p ON p.call_id = o.call_id
  WHERE p.start_ns >= o.c_ns AND (p.conversation_id = o.conversation_id OR (o.conversation_id IS NULL AND p.run_id = o.run_id))
)
SELECT
  o.run_id AS run_id, o.trace_id AS trace_id, o.call_id AS call_id, o.tool AS tool, o.start_ns AS start_ns, o.end_ns AS end_ns, o.result AS result,
  coalesce(o.lost_raw, false) AS lost, o.late AS late,
  (o.run_id, o.call_id) IN (SELECT run_id, call_id FROM repaired) AS repaired
FROM outcomes AS o
