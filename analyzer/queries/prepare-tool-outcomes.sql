-- Generated from queries/model/prepare-tool-outcomes.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_tool_outcomes
-- @description What became of each tool call of a cancelled run (METRICS.md §3): lost when no result reached the conversation (never for a framework step, afterstop.tool.kind = step) (no ended execute_tool span, a result late / dropped / cancelled, or an end after A); repaired when a history repair of the same conversation at or after C lists its call id; late when it ended after A or is marked late.
-- @param since_ns BIGINT runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT runs that start before this time (NULL: no upper bound)
-- @returns nothing; creates report_tool_outcomes (DuckDB: a temporary view: its two readers compute it for less than the table would cost to write; ClickHouse: a temporary table)
-- @binds variables (a view takes no parameters: each is the session variable <query name>_<parameter>)
CREATE OR REPLACE TEMP VIEW report_tool_outcomes AS
-- The calls of cancelled runs (tool-call-facts.sql), which carry their run's group, conversation, start, C and A.
WITH outcomes AS (
  SELECT
    t.run_id, t.trace_id, t.call_id, coalesce(t.tool_name, '(unnamed)') AS tool, t.start_ns, t.end_ns, t.result,
    -- A framework step (a LangGraph node, a workflow step) is not in the conversation: it cannot be lost from it.
    t.kind <> 'step' AND (NOT t.has_span OR t.end_ns IS NULL OR t.result IN ('late', 'dropped', 'cancelled') OR (t.a_ns IS NOT NULL AND t.end_ns > t.a_ns)) AS lost,
    coalesce(t.result = 'late' OR (t.a_ns IS NOT NULL AND t.end_ns > t.a_ns), false) AS late,
    t.c_ns, t.conversation_id, t.service, t.agent, t.framework, ((getvariable('prepare_tool_outcomes_since_ns') IS NULL OR t.run_start_ns >= getvariable('prepare_tool_outcomes_since_ns')) AND (getvariable('prepare_tool_outcomes_until_ns') IS NULL OR t.run_start_ns < getvariable('prepare_tool_outcomes_until_ns'))) AS in_window
  FROM tool_call_facts AS t
),
-- A repair (repair-facts.sql) after C in the same conversation (the same run, without one) that lists the call.
-- (The calls read from the facts, which carry C and the conversation, rather than from outcomes: outcomes is
-- then read once, so it is not written out as a CTE of its own.)
repaired AS (
  SELECT DISTINCT t.run_id, t.call_id
  FROM tool_call_facts AS t JOIN repair_facts AS p ON p.call_id = t.call_id
  WHERE p.start_ns >= t.c_ns AND (p.conversation_id = t.conversation_id OR (t.conversation_id IS NULL AND p.run_id = t.run_id))
)
SELECT
  o.run_id, o.trace_id, o.call_id, o.tool, o.start_ns, o.end_ns, o.result, o.lost, o.late,
  p.run_id IS NOT NULL AS repaired,
  -- The run's group, whether it is in the window and its conversation: orphan-tool-calls.sql and findings.sql read
  -- them without joining the runs.
  o.service, o.agent, o.framework, o.in_window, o.conversation_id
FROM outcomes AS o LEFT JOIN repaired AS p ON p.run_id = o.run_id AND p.call_id = o.call_id;
