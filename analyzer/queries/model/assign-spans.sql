-- @name assign_spans
-- @description The spans assign-runs.sql reads, each with what tells its role by itself: every span of the traces just touched (DuckDB: touched_traces; ClickHouse: every trace read) that hold a span not naming its run (afterstop.run.id), or a run span under another (a mirror, perhaps). Kept in a temporary table with assign-walk.sql's walk, since assign-runs.sql reads it some twenty times: ClickHouse evaluated a CTE again at each reference, and planning that statement alone took 0.85 s over 17 spans.
-- @returns nothing; creates the temporary table assign_spans
@statement_table(assign_spans)
SELECT trace_id, span_id, parent_span_id, name, kind, process_key, request_span_id, start_ns, attr_run_id, op_name, oi_kind, traceloop_kind, has_request_model,
  has_http, agent_like, @is_run_span(name, op_name) AS is_run_span, tool_call_id, mcp_side,
  @is_mcp_server(name, kind, mcp_side) AS is_mcp_server,
  @span_role(name, op_name, oi_kind, traceloop_kind, has_request_model) AS own_role   -- as far as the span alone tells it
FROM spans
WHERE trace_id IN (
  SELECT trace_id FROM spans
  WHERE @touched(trace_id) AND attr_run_id IS NULL
    AND (NOT @is_run_span(name, op_name) OR parent_span_id IS NOT NULL)  -- a run span under another may be a mirror
);
