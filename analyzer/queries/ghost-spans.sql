-- Generated from queries/model/ghost-spans.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name ghost_spans
-- @description The spans of the cancelled runs of the traces just touched that ghost-commit-facts.sql reads (commit and start markers, tool and MCP server spans), each with its run's C, group and start, and the call it is of (call_key: its tool call id, a tool span without one its span id; a commit marker without one is of its parent tool span, as a foreign execute_tool span's markers are: Google ADK sets the span's gen_ai.tool.call.id only at its end, after the marker was written): one pass over the spans, kept in a temporary table that statement reads several times (a CTE there was evaluated again at each reference by ClickHouse: 1.4 s against 0.5 s at 1,000,000 spans, and 0.5-0.6 s against 0.25-0.28 s with the call found here).
-- @returns nothing; creates the temporary table ghost_spans
CREATE OR REPLACE TEMP TABLE ghost_spans AS
WITH g AS (
  SELECT sp.run_id, sp.trace_id, sp.span_id, sp.parent_span_id, sp.name, sp.role, sp.status_code, sp.start_ns, sp.end_ns, sp.tool_call_id,
    sp.tool_name, sp.effect, sp.commit_evidence, sp.commit_unanswered_ms, sp.out_of_sight, sp.commit_count, sp.commit_pending, sp.body_detached, sp.fence_passed, sp.result, sp.tool_kind, r.c_ns,
    sp.process_key, sp.request_span_id, sp.commit_round_trip_ms, sp.service AS span_service,
    r.service, r.agent, r.framework, r.conversation_id, r.start_ns AS run_start_ns, sp.mcp_side,
    -- What an MCP client alone knows of its tools/call (issue 48): the request written and its answer lost
    -- (request_sent with mcp.method.name), the server's answer (mcp_result).
    coalesce(sp.commit_evidence = 'mcp_result' OR (sp.commit_evidence = 'request_sent' AND sp.mcp_method IS NOT NULL), false) AS client_mcp_evidence
  FROM spans AS sp JOIN run_facts AS r ON r.run_id = sp.run_id
  WHERE sp.trace_id IN (SELECT trace_id FROM touched_traces) AND r.cancelled AND (sp.name IN ('afterstop.tool.commit', 'afterstop.tool.start') OR sp.role IN ('tool', 'mcp_server'))
)
SELECT x.*,
  CASE WHEN x.name = 'afterstop.tool.commit' THEN coalesce(x.tool_call_id, p.parent_key, x.parent_span_id) ELSE coalesce(x.tool_call_id, x.span_id) END AS call_key
FROM g AS x
LEFT JOIN (
  SELECT run_id AS parent_run, span_id AS parent_span, coalesce(tool_call_id, span_id) AS parent_key FROM g WHERE role IN ('tool', 'mcp_server')
) AS p ON p.parent_run = x.run_id AND p.parent_span = x.parent_span_id;
