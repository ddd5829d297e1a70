-- Generated from queries/model/assign-spans.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name assign_spans
-- @description The spans assign-runs.sql reads, each with what tells its role by itself: every span of the traces just touched (DuckDB: touched_traces; ClickHouse: every trace read) that hold a span not naming its run (afterstop.run.id), or a run span under another (a mirror, perhaps). Kept in a temporary table with assign-walk.sql's walk, since assign-runs.sql reads it some twenty times: ClickHouse evaluated a CTE again at each reference, and planning that statement alone took 0.85 s over 17 spans.
-- @returns nothing; creates the temporary table assign_spans
CREATE OR REPLACE TEMPORARY TABLE assign_spans AS
SELECT trace_id, span_id, parent_span_id, name, kind, process_key, request_span_id, start_ns, attr_run_id, op_name, oi_kind, traceloop_kind, has_request_model,
  has_http, agent_like, (coalesce(op_name = 'invoke_agent', false) OR startsWith(name, 'invoke_agent')) AS is_run_span, tool_call_id, mcp_side,
  ((coalesce(mcp_side = 'server', false) AND NOT startsWith(name, 'afterstop.')) OR (coalesce(kind = 2, false) AND startsWith(name, 'tools/call'))) AS is_mcp_server,
  CASE
    WHEN (coalesce(op_name = 'invoke_agent', false) OR startsWith(name, 'invoke_agent')) THEN 'run'
    WHEN startsWith(name, 'afterstop.') THEN 'marker'
    WHEN coalesce(op_name = 'execute_tool', false) OR startsWith(name, 'execute_tool')
      OR startsWith(name, 'tools/call')
      OR name = 'ai.toolCall'
      OR coalesce(oi_kind = 'TOOL', false)
      OR coalesce(traceloop_kind = 'tool', false) THEN 'tool'
    WHEN coalesce(op_name IN ('chat', 'text_completion', 'generate_content'), false)
      OR has_request_model
      OR name IN ('ai.streamText.doStream', 'ai.generateText.doGenerate', 'ai.streamObject.doStream', 'ai.generateObject.doGenerate')
      OR coalesce(oi_kind = 'LLM', false) THEN 'model'
    ELSE 'other'
  END AS own_role   -- as far as the span alone tells it
FROM spans
WHERE trace_id IN (
  SELECT trace_id FROM spans
  WHERE true AND attr_run_id IS NULL
    AND (NOT (coalesce(op_name = 'invoke_agent', false) OR startsWith(name, 'invoke_agent')) OR parent_span_id IS NOT NULL)  -- a run span under another may be a mirror
)
