-- Expressions the model files share, written once: `@name(args)` in a model file is the body below with
-- its parameters replaced (analyzer/sql/render-query.ts). A body is SQL both engines read alike, and may
-- use the constructs of analyzer/sql/dialect.ts.

-- @fragment run_key(trace, local_id)
-- A run's key: its trace id and its id within the trace (its run span's id, or the afterstop.run.id its
-- spans name). Span ids are unique only within a trace: the same ids in two traces are two runs.
trace || ':' || local_id

-- @fragment in_window(start)
-- Does a run that starts at `start` lie in the report's window? The query declares the window's ends, $since_ns
-- and $until_ns (NULL: an open end). A fact of a run carries its run's start (run_start_ns), so that a query
-- over the facts keeps the window's without joining the runs.
(($since_ns IS NULL OR start >= $since_ns) AND ($until_ns IS NULL OR start < $until_ns))

-- @fragment run_local_id(run)
-- A run's id as the report shows it (beside its trace id): the part after the trace id.
substring(run, position(':' IN run) + 1)

-- @fragment stop_offset(d)
-- A time relative to the Stop, in words: "12.345 ms after Stop", "3.000 ms before Stop" (d in ns, time − C).
CASE WHEN d < 0 THEN printf('%.3f', -d / 1e6) || ' ms before Stop' ELSE printf('%.3f', d / 1e6) || ' ms after Stop' END

-- @fragment is_run_span(name, op_name)
-- Is a span a run (invoke_agent)?
(coalesce(op_name = 'invoke_agent', false) OR @starts_with(name, 'invoke_agent'))

-- @fragment span_role(name, op_name, oi_kind, traceloop_kind, has_request_model)
-- What a span is, as far as the span alone tells it: a run, one of afterstop's markers, a tool call (an MCP
-- tools/call span of another instrumentation, `tools/call {tool}`, too), a model call (GenAI, the Vercel AI SDK,
-- OpenInference, OpenLLMetry), or other. (assign-runs.sql makes the server side of a joined MCP call mcp_server.)
CASE
  WHEN @is_run_span(name, op_name) THEN 'run'
  WHEN @starts_with(name, 'afterstop.') THEN 'marker'
  WHEN coalesce(op_name = 'execute_tool', false) OR @starts_with(name, 'execute_tool')
    OR @starts_with(name, 'tools/call')
    OR name = 'ai.toolCall'
    OR coalesce(oi_kind = 'TOOL', false)
    OR coalesce(traceloop_kind = 'tool', false) THEN 'tool'
  WHEN coalesce(op_name IN ('chat', 'text_completion', 'generate_content'), false)
    OR has_request_model
    OR name IN ('ai.streamText.doStream', 'ai.generateText.doGenerate', 'ai.streamObject.doStream', 'ai.generateObject.doGenerate')
    OR coalesce(oi_kind = 'LLM', false) THEN 'model'
  ELSE 'other'
END

-- @fragment is_mcp_server(name, kind, mcp_side)
-- Is a span the server side of an MCP tools/call (issue 48): afterstop's (afterstop.mcp.side = server, not one of
-- its markers, which say their side too) or another instrumentation's (`tools/call {tool}`, kind SERVER)?
((coalesce(mcp_side = 'server', false) AND NOT @starts_with(name, 'afterstop.')) OR (coalesce(kind = 2, false) AND @starts_with(name, 'tools/call')))

-- @fragment process_key(instance_id, host_name, host_id, pid, service)
-- The process that wrote a span (issue 49), from its resource: service.instance.id, else the host (host.name, else
-- host.id) and process.pid, else service.name; NULL without any. Two spans of one trace with different keys are
-- two processes, two clocks.
coalesce(instance_id,
  CASE WHEN coalesce(host_name, host_id) IS NOT NULL AND pid IS NOT NULL THEN coalesce(host_name, host_id) || '/' || pid END,
  service)

-- @fragment span_attribute_columns()
-- The columns the leak model reads from a span's attributes, the same for every input (DuckDB's span_rows in
-- macros.sql over OTLP/JSON and Tempo blocks; ClickHouse's spans.sql over the exporter's table), each
-- @span_attr the input's lookup of one attribute as text (NULL when absent). The framework of a foreign span:
-- the Vercel AI SDK's own telemetry; Google ADK's and Strands' (their scopes; afterstop does not instrument them); Python frameworks: PydanticAI's own instrumentation (its scope),
-- AutoGen's built-in spans, and the OpenInference instrumentations of CrewAI and the OpenAI Agents SDK
-- (their scopes); else OpenInference or OpenLLMetry.
@span_attr('afterstop.run.id') AS attr_run_id,
@span_attr('gen_ai.operation.name') AS op_name,
CASE
  WHEN @span_attr('afterstop.framework') IS NOT NULL THEN @span_attr('afterstop.framework')
  WHEN @span_attr('ai.operationId') IS NOT NULL OR @starts_with(name, 'ai.') THEN 'vercel-ai'
  WHEN scope = 'gcp.vertex.agent' THEN 'google-adk'
  WHEN scope = 'strands-agents' THEN 'strands'
  WHEN scope = 'pydantic-ai' THEN 'pydantic-ai'
  WHEN @span_attr('gen_ai.system') = 'autogen' THEN 'autogen'
  WHEN @span_attr('openinference.span.kind') IS NOT NULL THEN
    CASE WHEN scope = 'openinference.instrumentation.crewai' THEN 'crewai'
         WHEN scope = 'openinference.instrumentation.openai_agents' THEN 'openai-agents-python'
         ELSE 'openinference' END
  WHEN @span_attr('traceloop.span.kind') IS NOT NULL OR @span_attr('traceloop.entity.name') IS NOT NULL THEN 'openllmetry'
END AS framework,
coalesce(@span_attr('gen_ai.conversation.id'), @span_attr('session.id'), @span_attr('ai.telemetry.metadata.sessionId'),
  @span_attr('ai.telemetry.metadata.threadId')) AS conversation_id,
-- The frameworks afterstop does not instrument that ran beside the span's run (afterstop.run.uninstrumented,
-- sorted and comma-separated), or that wrote the span: Google ADK's and Strands' own spans (their scopes) are
-- runs afterstop saw only through them, without Stop markers. The run's figures are lower bounds.
coalesce(@span_attr('afterstop.run.uninstrumented'),
  CASE WHEN scope = 'gcp.vertex.agent' THEN '@google/adk' WHEN scope = 'strands-agents' THEN '@strands-agents/sdk' END) AS uninstrumented,
@span_attr('gen_ai.agent.name') AS agent_name,
@span_attr('ai.telemetry.functionId') AS function_id,
coalesce(@span_attr('gen_ai.tool.name'), @span_attr('ai.toolCall.name'), @span_attr('tool.name'), @span_attr('traceloop.entity.name')) AS tool_name,
coalesce(@span_attr('gen_ai.tool.call.id'), @span_attr('ai.toolCall.id'), @span_attr('tool_call.id')) AS tool_call_id,
coalesce(@span_attr('gen_ai.request.model'), @span_attr('gen_ai.response.model'), @span_attr('ai.model.id'), @span_attr('llm.model_name')) AS model,
-- Who served the model (the price depends on it): the GenAI conventions' provider (current, then the deprecated
-- gen_ai.system), the AI SDK's own (openai.chat, anthropic.messages), OpenInference's.
coalesce(@span_attr('gen_ai.provider.name'), @span_attr('gen_ai.system'), @span_attr('ai.model.provider'), @span_attr('llm.provider'),
  @span_attr('llm.system')) AS provider,
CAST(@span_attr('gen_ai.request.model') IS NOT NULL AS BOOLEAN) AS has_request_model,
@try_bigint(coalesce(@span_attr('gen_ai.usage.input_tokens'), @span_attr('gen_ai.usage.prompt_tokens'), @span_attr('ai.usage.inputTokens'),
  @span_attr('ai.usage.promptTokens'), @span_attr('llm.token_count.prompt'))) AS input_tokens,
@try_bigint(coalesce(@span_attr('gen_ai.usage.output_tokens'), @span_attr('gen_ai.usage.completion_tokens'), @span_attr('ai.usage.outputTokens'),
  @span_attr('ai.usage.completionTokens'), @span_attr('llm.token_count.completion'))) AS output_tokens,
@try_bigint(@span_attr('afterstop.model.output_tokens_streamed')) AS output_tokens_streamed,
@try_bigint(@span_attr('afterstop.model.output_tokens_after_cancel')) AS output_tokens_after_cancel,
coalesce(@try_double(@span_attr('gen_ai.response.time_to_first_chunk')),
  @try_double(@span_attr('ai.response.msToFirstChunk')) / 1000) AS time_to_first_chunk_s,
@span_attr('afterstop.run.outcome') AS outcome,
@span_attr('ai.response.finishReason') AS finish_reason,
@span_attr('afterstop.tool.effect') AS effect,
@span_attr('afterstop.tool.kind') AS tool_kind,
@span_attr('afterstop.tool.out_of_sight') AS out_of_sight,
@span_attr('afterstop.tool.result') AS result,
@span_attr('afterstop.tool.idempotency_key') AS idempotency_key,
@span_attr('afterstop.steer.id') AS steer_id,
@span_attr('afterstop.steer.position') AS steer_position,
@span_attr('afterstop.compensation.outcome') AS compensation_outcome,
@span_attr('afterstop.tool.commit.evidence') AS commit_evidence,
@try_double(@span_attr('afterstop.tool.commit.unanswered_ms')) AS commit_unanswered_ms,
@try_bigint(@span_attr('afterstop.tool.commit.count')) AS commit_count,
@try_bigint(@span_attr('afterstop.tool.commit.pending')) AS commit_pending,
@span_attr('afterstop.tool.body_detached') AS body_detached,
@span_attr('afterstop.guard.idempotency_key') AS guard_key,
@span_attr('afterstop.guard.fence.passed') AS fence_passed,
@span_attr('afterstop.cancel.source') AS cancel_source,
@span_attr('process.pid') AS pid,
-- MCP (issue 48): the OpenTelemetry MCP conventions' method and JSON-RPC request id, afterstop's side, server,
-- how a cancel crossed the boundary (client: notification | stream_closed | none; server: the way it arrived) and
-- what the server's handler did with it (stopped | finished_after_cancel).
@span_attr('mcp.method.name') AS mcp_method,
@span_attr('jsonrpc.request.id') AS mcp_request_id,
@span_attr('afterstop.mcp.side') AS mcp_side,
@span_attr('afterstop.mcp.server') AS mcp_server,
@span_attr('afterstop.mcp.cancel.via') AS mcp_cancel_via,
@span_attr('afterstop.mcp.handler') AS mcp_handler,
-- A commit marker afterstop's detector wrote under another instrumentation's execute_tool span (issue 48).
@span_attr('afterstop.tool.foreign') AS tool_foreign,
-- The far side's witness (issue 49): a commit marker's request span id (the traceparent its request carried) and
-- round trip (body sent → answer); of a service's spans, what OpenTelemetry's HTTP server, database and messaging
-- conventions say (HTTP: the stable names, else the older ones OpenTelemetry's instrumentations still write by default).
lower(@span_attr('afterstop.tool.commit.request_span_id')) AS request_span_id,
@try_double(@span_attr('afterstop.tool.commit.round_trip_ms')) AS commit_round_trip_ms,
coalesce(@span_attr('db.system.name'), @span_attr('db.system')) AS db_system,
@span_attr('messaging.system') AS messaging_system,
@try_bigint(coalesce(@span_attr('http.response.status_code'), @span_attr('http.status_code'))) AS http_status,
coalesce(@span_attr('http.request.method'), @span_attr('http.method')) AS http_method,
@span_attr('error.type') AS error_type,
@span_attr('openinference.span.kind') AS oi_kind,
@span_attr('traceloop.span.kind') AS traceloop_kind
