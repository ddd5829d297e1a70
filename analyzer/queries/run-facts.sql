-- Generated from queries/model/run-facts.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name run_facts
-- @description One row per run of the traces just touched (DuckDB: touched_traces, inserted into the store's run_facts; ClickHouse: every trace read, the session's run_facts), from the spans with their runs (assign-runs.sql): its group, conversation, cancel time C (the first afterstop.cancel.request; for a run cancelled by outcome alone its end; inferred, for a foreign trace without markers, from the first span ending with an abort or cancel), acknowledge time A and settle marker (a run that is an MCP server's tools/call without its client: C the cancel it received, afterstop.mcp.cancel.received, its source mcp, A its end when its handler stopped on it, and what its handler did, mcp_handler), and the source of its first cancel request (a guard deadline's is `timeout`), and the frameworks afterstop does not instrument that ran beside it (afterstop.run.uninstrumented, or the framework whose own spans the run is). A run whose run span was never exported is built from its other spans and marked unended.
-- @returns nothing; fills run_facts
INSERT INTO run_facts BY NAME
WITH per_run AS (
  SELECT
    run_id,
    -- A run's key begins with its trace's id (run_key), so every span of a run lies in one trace: grouped by both,
    -- no aggregate over the text of the trace id (such states are held outside DuckDB's memory limit).
    trace_id,
    min(start_ns) AS first_ns,
    max(start_ns) FILTER (WHERE trace_id || ':' || span_id = run_id OR (role = 'run' AND trace_id || ':' || attr_run_id = run_id)) AS run_start_ns,
    max(end_ns) FILTER (WHERE trace_id || ':' || span_id = run_id OR (role = 'run' AND trace_id || ':' || attr_run_id = run_id)) AS run_end_ns,
    any_value(outcome) FILTER (WHERE role = 'run') AS outcome,
    coalesce(any_value(service) FILTER (WHERE role = 'run'), any_value(service)) AS service,
    coalesce(any_value(agent_name) FILTER (WHERE role = 'run'), any_value(agent_name),
      any_value(function_id)) AS agent,
    coalesce(any_value(framework) FILTER (WHERE role = 'run'), any_value(framework)) AS framework,
    coalesce(any_value(conversation_id) FILTER (WHERE role = 'run'), any_value(conversation_id)) AS conversation_id,
    coalesce(any_value(uninstrumented) FILTER (WHERE role = 'run'), any_value(uninstrumented)) AS uninstrumented,
    min(start_ns) FILTER (WHERE name = 'afterstop.cancel.request') AS request_ns,
    -- A run that is an MCP server's tools/call with no client in the store (issue 48: the client was not
    -- instrumented, or sent no traceparent): the cancel the server received is its Stop, and a handler that
    -- stopped on it acknowledged it at its end.
    count(*) FILTER (WHERE role = 'run' AND ((coalesce(mcp_side = 'server', false) AND NOT starts_with(name, 'afterstop.')) OR (coalesce(kind = 2, false) AND starts_with(name, 'tools/call')))) > 0 AS mcp_server_run,
    min(start_ns) FILTER (WHERE name = 'afterstop.mcp.cancel.received') AS mcp_received_ns,
    any_value(mcp_handler) FILTER (WHERE role = 'run') AS mcp_handler,
    argMin(cancel_source, start_ns) FILTER (WHERE name = 'afterstop.cancel.request') AS cancel_source,
    min(start_ns) FILTER (WHERE name = 'afterstop.cancel.ack') AS ack_ns,
    min(start_ns) FILTER (WHERE name = 'afterstop.cancel.settle') AS settle_marker_ns,
    -- (The markers of an MCP server's side joined to the run, issue 48, are the server's: they say nothing of the
    -- run's own Stop, which a foreign client's trace may show only by its abort; of a server's run of its own, they are its.)
    -- Nor are the commit markers afterstop's detector wrote under a foreign tool's span outside any afterstop run
    -- (afterstop.tool.foreign): a foreign run keeps the Stop its abort shows.
    count(*) FILTER (WHERE starts_with(name, 'afterstop.') AND coalesce(mcp_side, '') <> 'server' AND coalesce(tool_foreign, '') <> 'true') > 0 AS has_markers,
    count(*) FILTER (WHERE starts_with(name, 'afterstop.') AND coalesce(mcp_side, '') = 'server') > 0 AS has_server_markers,
    -- Abort evidence in a foreign trace: the end of the first span whose status or exception names an abort or cancel;
    -- else an AI SDK root that ended with no status and no usage, and no finish reason or "other" (its onAbort ends
    -- spans that way: "other" when a later step was cut, after a tool step); a root that finished always has its usage.
    coalesce(
      min(end_ns) FILTER (WHERE is_cancellation),
      min(end_ns) FILTER (WHERE role = 'run' AND starts_with(name, 'ai.') AND status_code = 0
        AND coalesce(finish_reason, 'other') IN ('other', 'unknown') AND input_tokens IS NULL AND output_tokens IS NULL)
    ) AS abort_evidence_ns
  FROM spans
  WHERE run_id IS NOT NULL AND trace_id IN (SELECT trace_id FROM touched_traces)
  GROUP BY run_id, trace_id
),
stops AS (
  SELECT * REPLACE (
    coalesce(request_ns, CASE WHEN mcp_server_run THEN mcp_received_ns END) AS request_ns,
    coalesce(ack_ns, CASE WHEN mcp_server_run AND mcp_received_ns IS NOT NULL AND mcp_handler = 'stopped' THEN run_end_ns END) AS ack_ns,
    CASE WHEN request_ns IS NULL AND mcp_server_run AND mcp_received_ns IS NOT NULL THEN 'mcp' ELSE cancel_source END AS cancel_source,
    -- A server's run without its client: its own markers are afterstop's record of it.
    has_markers OR (mcp_server_run AND has_server_markers) AS has_markers)
  FROM per_run
)
SELECT
  run_id, trace_id, service, agent, framework, conversation_id,
  coalesce(run_start_ns, first_ns) AS start_ns,
  run_end_ns AS end_ns,                 -- NULL: the run span was never exported
  run_end_ns IS NULL AS unended,
  outcome,
  request_ns IS NOT NULL OR coalesce(outcome = 'cancelled', false) OR (NOT has_markers AND abort_evidence_ns IS NOT NULL) AS cancelled,
  coalesce(request_ns, CASE WHEN outcome = 'cancelled' THEN run_end_ns END, CASE WHEN NOT has_markers THEN abort_evidence_ns END) AS c_ns,
  request_ns IS NULL AND coalesce(outcome, '') <> 'cancelled' AND NOT has_markers AND abort_evidence_ns IS NOT NULL AS cancel_inferred,
  ack_ns AS a_ns,
  settle_marker_ns,
  request_ns IS NOT NULL AS has_request,
  cancel_source,
  uninstrumented,
  CASE WHEN mcp_server_run THEN mcp_handler END AS mcp_handler
FROM stops;
