-- Generated from queries/model/tool-call-facts.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name tool_call_facts
-- @description One row per tool call of a cancelled run of the traces just touched, with the run's group, conversation, start (run_start_ns: the report's window), C and A (DuckDB: touched_traces, inserted into the store's tool_call_facts at ingest, so that a report over an unchanged store does not redo it; ClickHouse: every trace read, the session's tool_call_facts), keyed by its tool call id (the span id when it has none), known from its afterstop.tool.start marker, its execute_tool span, or a tool-call id in a model span's output: OpenLLMetry's gen_ai.completion.N.tool_calls.M.id, OpenInference's llm.output_messages.N.message.tool_calls.M.tool_call.id, the AI SDK's ai.response.toolCalls. A call known only from a model's output started when that model call ended. An MCP tools/call (issue 48) carries its server, JSON-RPC request id and how the Stop crossed the boundary (afterstop.mcp.cancel.via), and, when the server's side is joined to it (assign-runs.sql), when the server's handler ended, what it did after the cancel (afterstop.mcp.handler) and when and how the cancel reached it (afterstop.mcp.cancel.received).
-- @returns nothing; fills tool_call_facts
CREATE OR REPLACE TEMPORARY TABLE tool_call_facts AS
WITH executed AS (
  SELECT
    run_id, coalesce(tool_call_id, span_id) AS call_id, tool_name, start_ns,
    role = 'tool' AS is_span, CASE WHEN role = 'tool' THEN end_ns END AS end_ns,
    -- A foreign tool span that ended by the cancellation delivered no result (inferred).
    CASE WHEN role = 'tool' THEN coalesce(result, CASE WHEN is_cancellation THEN 'cancelled' END) END AS result,
    CASE WHEN role = 'tool' THEN effect END AS effect,
    tool_kind,
    trace_id,
    -- An MCP tools/call (issue 48): its server, request id and how the Stop crossed to the server.
    CASE WHEN role = 'tool' THEN mcp_server END AS mcp_server,
    CASE WHEN role = 'tool' THEN mcp_request_id END AS mcp_request_id,
    CASE WHEN role = 'tool' THEN mcp_cancel_via END AS mcp_cancel_via
  FROM report_spans
  WHERE (role = 'tool' OR name = 'afterstop.tool.start') AND run_id IS NOT NULL AND true
),
output_keys AS (
  SELECT s.run_id AS run_id, s.trace_id AS trace_id, s.end_ns AS end_ns, s.output_attrs AS attrs, k
  FROM report_spans AS s
  ARRAY JOIN mapKeys(s.output_attrs) AS k
  -- The rare spans with tool call ids in their output first, then whether their trace was touched.
  WHERE s.output_tool_calls AND s.run_id IS NOT NULL AND true
    AND (match(k, '^(?:gen_ai\\.completion\\.\\d+\\.tool_calls\\.\\d+\\.id)$')
      OR match(k, '^(?:llm\\.output_messages\\.\\d+\\.message\\.tool_calls\\.\\d+\\.tool_call\\.id)$')
      OR k = 'ai.response.toolCalls')
),
requested AS (
  SELECT run_id, nullIf(attrs[k], '') AS call_id,
    coalesce(nullIf(attrs[replaceRegexpOne(k, '\\.id$', '.name')], ''), nullIf(attrs[replaceRegexpOne(k, '\\.id$', '.function.name')], '')) AS tool_name,
    end_ns AS start_ns, trace_id
  FROM output_keys WHERE k <> 'ai.response.toolCalls'
  UNION ALL
  SELECT o.run_id AS run_id, nullIf(JSONExtractString(c, 'toolCallId'), ''), nullIf(JSONExtractString(c, 'toolName'), ''), o.end_ns AS end_ns, o.trace_id AS trace_id
  FROM output_keys AS o
  ARRAY JOIN JSONExtractArrayRaw(o.attrs[o.k]) AS c
  WHERE o.k = 'ai.response.toolCalls'
),
calls AS (
  SELECT run_id, call_id, tool_name, start_ns, is_span, end_ns, result, effect, tool_kind, trace_id, true AS executed,
    mcp_server, mcp_request_id, mcp_cancel_via FROM executed
  UNION ALL
  SELECT run_id, call_id, tool_name, start_ns, false, NULL, NULL, NULL, NULL, trace_id, false, NULL, NULL, NULL FROM requested WHERE call_id IS NOT NULL
),
-- The server side of an MCP call joined to it (assign-runs.sql: role mcp_server, the spans in it with the call's id):
-- when its handler ended, what it did after the cancel, and when the cancel reached it. (Its columns named apart
-- from the calls': ClickHouse names a joined g.* column that both sides have g.<column>.)
servers AS (
  SELECT run_id AS server_run_id, tool_call_id AS server_call_id,
    max(end_ns) FILTER (WHERE role = 'mcp_server') AS server_end_ns,
    any_value(mcp_handler) FILTER (WHERE role = 'mcp_server') AS mcp_handler,
    min(start_ns) FILTER (WHERE name = 'afterstop.mcp.cancel.received') AS cancel_received_ns,
    any_value(mcp_cancel_via) FILTER (WHERE name = 'afterstop.mcp.cancel.received') AS received_via
  FROM report_spans
  WHERE (role = 'mcp_server' OR name = 'afterstop.mcp.cancel.received') AND run_id IS NOT NULL AND tool_call_id IS NOT NULL AND true
  GROUP BY run_id, tool_call_id
),
grouped AS (
  SELECT
    run_id,
    call_id,
    any_value(tool_name) AS tool_name,
    -- A call executed starts when it executed; one only requested, when the model asked for it.
    coalesce(min(start_ns) FILTER (WHERE executed), min(start_ns)) AS start_ns,
    max(is_span) AS has_span,
    max(executed) AS executed,          -- false: the model asked for it, nothing ran it
    max(end_ns) AS end_ns,
    any_value(result) AS result,
    coalesce(any_value(effect), 'unknown') AS effect,
    coalesce(any_value(tool_kind), 'tool') AS kind,    -- step: a framework step, not a tool call of the conversation
    any_value(trace_id) AS trace_id,
    any_value(mcp_server) AS mcp_server,
    any_value(mcp_request_id) AS mcp_request_id,
    any_value(mcp_cancel_via) AS mcp_cancel_via
  FROM calls
  GROUP BY run_id, call_id
)
-- With its run's group, conversation, start, C and A: the report reads the calls without joining the runs.
SELECT g.*, r.service AS service, r.agent AS agent, r.framework AS framework, r.conversation_id AS conversation_id, r.start_ns AS run_start_ns, r.c_ns AS c_ns, r.a_ns AS a_ns
FROM (
  SELECT c.*, v.server_end_ns AS server_end_ns, v.mcp_handler AS mcp_handler, v.cancel_received_ns AS cancel_received_ns, v.received_via AS received_via
  FROM grouped AS c LEFT JOIN servers AS v ON v.server_run_id = c.run_id AND v.server_call_id = c.call_id
) AS g JOIN run_facts AS r ON r.run_id = g.run_id
WHERE r.cancelled
