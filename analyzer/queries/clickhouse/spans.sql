-- Generated from queries/model/spans.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name spans
-- @description ClickHouse: the spans of the window from the OpenTelemetry Collector ClickHouse exporter's traces table (otel_traces) as the leak model reads them, into the session's temporary table spans, with the columns DuckDB's store gives (queries/macros.sql, span_rows): ids, times, kind and status (both the exporter's enum spellings: Internal / SPAN_KIND_INTERNAL, Error / STATUS_CODE_ERROR), service and scope, the attributes the model reads (afterstop, GenAI current and deprecated, Vercel AI SDK, OpenInference, OpenLLMetry keys) as columns, each span's role and, when it names it, its run. A Map attribute the span lacks reads as ''; it counts as absent.
-- @param database String   the exporter's database
-- @param table    String   its traces table
-- @param since_ns Int64    the first span time read, in ns since the epoch (the start of the day before the window's)
-- @param until_ns Int64    the end of what is read (the end of the day after the window's)
-- @returns nothing; creates the temporary table spans
CREATE OR REPLACE TEMPORARY TABLE spans AS
WITH read AS (
  SELECT
    lower(TraceId) AS trace_id,
    lower(SpanId) AS span_id,
    nullIf(lower(ParentSpanId), '') AS parent_span_id,
    SpanName AS name,
    toInt8(multiIf(SpanKind IN ('Internal', 'SPAN_KIND_INTERNAL'), 1, SpanKind IN ('Server', 'SPAN_KIND_SERVER'), 2, SpanKind IN ('Client', 'SPAN_KIND_CLIENT'), 3,
      SpanKind IN ('Producer', 'SPAN_KIND_PRODUCER'), 4, SpanKind IN ('Consumer', 'SPAN_KIND_CONSUMER'), 5, 0)) AS kind,
    toInt64(toUnixTimestamp64Nano(Timestamp)) AS start_ns,
    toInt64(toUnixTimestamp64Nano(Timestamp)) + toInt64(Duration) AS end_ns,
    toInt8(multiIf(StatusCode IN ('Ok', 'STATUS_CODE_OK'), 1, StatusCode IN ('Error', 'STATUS_CODE_ERROR'), 2, 0)) AS status_code,
    nullIf(StatusMessage, '') AS status_message,
    nullIf(ServiceName, '') AS service,
    -- The process that wrote it (issue 49), from its resource.
    coalesce((nullIf(ResourceAttributes['service.instance.id'], '')),
      CASE WHEN coalesce((nullIf(ResourceAttributes['host.name'], '')), (nullIf(ResourceAttributes['host.id'], ''))) IS NOT NULL AND (nullIf(ResourceAttributes['process.pid'], '')) IS NOT NULL THEN coalesce((nullIf(ResourceAttributes['host.name'], '')), (nullIf(ResourceAttributes['host.id'], ''))) || '/' || (nullIf(ResourceAttributes['process.pid'], '')) END,
      (nullIf(ServiceName, ''))) AS process_key,
    nullIf(ScopeName, '') AS scope,
    SpanAttributes AS a,
    mapKeys(SpanAttributes) AS ks,
    `Events.Name` AS event_names,
    `Events.Attributes` AS event_attrs
  FROM {database:Identifier}.{table:Identifier}
  WHERE Timestamp >= fromUnixTimestamp64Nano({since_ns:Int64}) AND Timestamp < fromUnixTimestamp64Nano({until_ns:Int64})
    -- A span that ends before it starts (a signed Duration in the oldest schema) is not used, as in DuckDB's store.
    AND toInt64(Duration) >= 0
  -- Each span once (a batch the Collector retried is stored twice), as DuckDB's store keeps it.
  LIMIT 1 BY TraceId, SpanId
),
extracted AS (
  SELECT
    trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns, status_code, status_message, service, process_key, scope,
    nullIf(a['afterstop.run.id'], '') AS attr_run_id,
    nullIf(a['gen_ai.operation.name'], '') AS op_name,
    CASE
      WHEN nullIf(a['afterstop.framework'], '') IS NOT NULL THEN nullIf(a['afterstop.framework'], '')
      WHEN nullIf(a['ai.operationId'], '') IS NOT NULL OR startsWith(name, 'ai.') THEN 'vercel-ai'
      WHEN scope = 'gcp.vertex.agent' THEN 'google-adk'
      WHEN scope = 'strands-agents' THEN 'strands'
      WHEN scope = 'pydantic-ai' THEN 'pydantic-ai'
      WHEN nullIf(a['gen_ai.system'], '') = 'autogen' THEN 'autogen'
      WHEN nullIf(a['openinference.span.kind'], '') IS NOT NULL THEN
        CASE WHEN scope = 'openinference.instrumentation.crewai' THEN 'crewai'
             WHEN scope = 'openinference.instrumentation.openai_agents' THEN 'openai-agents-python'
             ELSE 'openinference' END
      WHEN nullIf(a['traceloop.span.kind'], '') IS NOT NULL OR nullIf(a['traceloop.entity.name'], '') IS NOT NULL THEN 'openllmetry'
    END AS framework,
    coalesce(nullIf(a['gen_ai.conversation.id'], ''), nullIf(a['session.id'], ''), nullIf(a['ai.telemetry.metadata.sessionId'], ''),
      nullIf(a['ai.telemetry.metadata.threadId'], '')) AS conversation_id,
    coalesce(nullIf(a['afterstop.run.uninstrumented'], ''),
      CASE WHEN scope = 'gcp.vertex.agent' THEN '@google/adk' WHEN scope = 'strands-agents' THEN '@strands-agents/sdk' END) AS uninstrumented,
    nullIf(a['gen_ai.agent.name'], '') AS agent_name,
    nullIf(a['ai.telemetry.functionId'], '') AS function_id,
    coalesce(nullIf(a['gen_ai.tool.name'], ''), nullIf(a['ai.toolCall.name'], ''), nullIf(a['tool.name'], ''), nullIf(a['traceloop.entity.name'], '')) AS tool_name,
    coalesce(nullIf(a['gen_ai.tool.call.id'], ''), nullIf(a['ai.toolCall.id'], ''), nullIf(a['tool_call.id'], '')) AS tool_call_id,
    coalesce(nullIf(a['gen_ai.request.model'], ''), nullIf(a['gen_ai.response.model'], ''), nullIf(a['ai.model.id'], ''), nullIf(a['llm.model_name'], '')) AS model,
    coalesce(nullIf(a['gen_ai.provider.name'], ''), nullIf(a['gen_ai.system'], ''), nullIf(a['ai.model.provider'], ''), nullIf(a['llm.provider'], ''),
      nullIf(a['llm.system'], '')) AS provider,
    CAST(nullIf(a['gen_ai.request.model'], '') IS NOT NULL AS BOOLEAN) AS has_request_model,
    toInt64OrNull(coalesce(nullIf(a['gen_ai.usage.input_tokens'], ''), nullIf(a['gen_ai.usage.prompt_tokens'], ''), nullIf(a['ai.usage.inputTokens'], ''),
      nullIf(a['ai.usage.promptTokens'], ''), nullIf(a['llm.token_count.prompt'], ''))) AS input_tokens,
    toInt64OrNull(coalesce(nullIf(a['gen_ai.usage.output_tokens'], ''), nullIf(a['gen_ai.usage.completion_tokens'], ''), nullIf(a['ai.usage.outputTokens'], ''),
      nullIf(a['ai.usage.completionTokens'], ''), nullIf(a['llm.token_count.completion'], ''))) AS output_tokens,
    toInt64OrNull(nullIf(a['afterstop.model.output_tokens_streamed'], '')) AS output_tokens_streamed,
    toInt64OrNull(nullIf(a['afterstop.model.output_tokens_after_cancel'], '')) AS output_tokens_after_cancel,
    coalesce(toFloat64OrNull(nullIf(a['gen_ai.response.time_to_first_chunk'], '')),
      toFloat64OrNull(nullIf(a['ai.response.msToFirstChunk'], '')) / 1000) AS time_to_first_chunk_s,
    nullIf(a['afterstop.run.outcome'], '') AS outcome,
    nullIf(a['ai.response.finishReason'], '') AS finish_reason,
    nullIf(a['afterstop.tool.effect'], '') AS effect,
    nullIf(a['afterstop.tool.kind'], '') AS tool_kind,
    nullIf(a['afterstop.tool.out_of_sight'], '') AS out_of_sight,
    nullIf(a['afterstop.tool.result'], '') AS result,
    nullIf(a['afterstop.tool.idempotency_key'], '') AS idempotency_key,
    nullIf(a['afterstop.steer.id'], '') AS steer_id,
    nullIf(a['afterstop.steer.position'], '') AS steer_position,
    nullIf(a['afterstop.compensation.outcome'], '') AS compensation_outcome,
    nullIf(a['afterstop.tool.commit.evidence'], '') AS commit_evidence,
    toFloat64OrNull(nullIf(a['afterstop.tool.commit.unanswered_ms'], '')) AS commit_unanswered_ms,
    toInt64OrNull(nullIf(a['afterstop.tool.commit.count'], '')) AS commit_count,
    toInt64OrNull(nullIf(a['afterstop.tool.commit.pending'], '')) AS commit_pending,
    nullIf(a['afterstop.tool.body_detached'], '') AS body_detached,
    nullIf(a['afterstop.guard.idempotency_key'], '') AS guard_key,
    nullIf(a['afterstop.guard.fence.passed'], '') AS fence_passed,
    nullIf(a['afterstop.cancel.source'], '') AS cancel_source,
    nullIf(a['process.pid'], '') AS pid,
    nullIf(a['mcp.method.name'], '') AS mcp_method,
    nullIf(a['jsonrpc.request.id'], '') AS mcp_request_id,
    nullIf(a['afterstop.mcp.side'], '') AS mcp_side,
    nullIf(a['afterstop.mcp.server'], '') AS mcp_server,
    nullIf(a['afterstop.mcp.cancel.via'], '') AS mcp_cancel_via,
    nullIf(a['afterstop.mcp.handler'], '') AS mcp_handler,
    nullIf(a['afterstop.tool.foreign'], '') AS tool_foreign,
    lower(nullIf(a['afterstop.tool.commit.request_span_id'], '')) AS request_span_id,
    toFloat64OrNull(nullIf(a['afterstop.tool.commit.round_trip_ms'], '')) AS commit_round_trip_ms,
    coalesce(nullIf(a['db.system.name'], ''), nullIf(a['db.system'], '')) AS db_system,
    nullIf(a['messaging.system'], '') AS messaging_system,
    toInt64OrNull(coalesce(nullIf(a['http.response.status_code'], ''), nullIf(a['http.status_code'], ''))) AS http_status,
    coalesce(nullIf(a['http.request.method'], ''), nullIf(a['http.method'], '')) AS http_method,
    nullIf(a['error.type'], '') AS error_type,
    nullIf(a['openinference.span.kind'], '') AS oi_kind,
    nullIf(a['traceloop.span.kind'], '') AS traceloop_kind,
    -- The exporter writes an array attribute as JSON (["id1","id2"]).
    if(name = 'afterstop.history.repair', JSONExtract(a['afterstop.repair.tool_call_ids'], 'Array(String)'), CAST([] AS Array(String))) AS repair_call_ids,
    if(length(event_names) > 0, nullIf(arrayStringConcat(arrayMap(e -> e['exception.message'], event_attrs), ','), ''), NULL) AS exception_text,
    toBool(a['error.type'] = 'cancelled'
      OR match(coalesce(status_message, ''), '(?i)abort|cancel')
      OR match(a['error.type'], '(?i)abort|cancel')
      OR arrayExists((n, e) -> n = 'exception' AND match(concat(e['exception.type'], ' ', e['exception.message']), '(?i)abort|cancel'), event_names, event_attrs))
      AS is_cancellation,
    if(attr_run_id IS NOT NULL, false, arrayExists(k -> startsWith(k, 'http.'), ks)) AS has_http,
    if(attr_run_id IS NOT NULL, true, arrayExists(k -> startsWith(k, 'gen_ai.') OR startsWith(k, 'ai.') OR startsWith(k, 'llm.')
      OR startsWith(k, 'openinference.') OR startsWith(k, 'traceloop.'), ks)) AS agent_like,
    toBool(arrayExists(k -> k = 'ai.response.toolCalls'
      OR (startsWith(k, 'gen_ai.completion.') AND endsWith(k, '.id') AND position(k, '.tool_calls.') > 0)
      OR (startsWith(k, 'llm.output_messages.') AND endsWith(k, '.tool_call.id')), ks)) AS output_tool_calls,
    if(output_tool_calls, CAST(a AS Map(String, String)), CAST(map() AS Map(String, String))) AS output_attrs,
    (coalesce(op_name = 'invoke_agent', false) OR startsWith(name, 'invoke_agent')) AS is_run_span
  FROM read
)
SELECT
  -- The columns of few distinct values, as LowCardinality: a Nullable(String) column costs some 10 bytes a row even
  -- empty, and the temporary table is held in memory (the report's peak at 1,000,000 spans 1.51-1.59 GB against
  -- 1.88-1.93 GB, its time the same).
  * REPLACE (toLowCardinality(process_key) AS process_key, toLowCardinality(scope) AS scope,
    toLowCardinality(op_name) AS op_name, toLowCardinality(framework) AS framework,
    toLowCardinality(uninstrumented) AS uninstrumented, toLowCardinality(agent_name) AS agent_name,
    toLowCardinality(function_id) AS function_id, toLowCardinality(tool_name) AS tool_name,
    toLowCardinality(model) AS model, toLowCardinality(provider) AS provider, toLowCardinality(outcome) AS outcome,
    toLowCardinality(finish_reason) AS finish_reason, toLowCardinality(effect) AS effect,
    toLowCardinality(tool_kind) AS tool_kind, toLowCardinality(out_of_sight) AS out_of_sight,
    toLowCardinality(steer_position) AS steer_position,
    toLowCardinality(compensation_outcome) AS compensation_outcome,
    toLowCardinality(commit_evidence) AS commit_evidence, toLowCardinality(body_detached) AS body_detached,
    toLowCardinality(fence_passed) AS fence_passed, toLowCardinality(cancel_source) AS cancel_source,
    toLowCardinality(mcp_method) AS mcp_method, toLowCardinality(mcp_side) AS mcp_side,
    toLowCardinality(mcp_server) AS mcp_server, toLowCardinality(mcp_cancel_via) AS mcp_cancel_via,
    toLowCardinality(mcp_handler) AS mcp_handler, toLowCardinality(tool_foreign) AS tool_foreign,
    toLowCardinality(db_system) AS db_system, toLowCardinality(messaging_system) AS messaging_system,
    toLowCardinality(http_method) AS http_method, toLowCardinality(error_type) AS error_type,
    toLowCardinality(oi_kind) AS oi_kind, toLowCardinality(traceloop_kind) AS traceloop_kind),
  toLowCardinality(CASE
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
  END) AS role,
  -- Keyed by trace too (run_key): span ids are unique only within a trace.
  CASE WHEN attr_run_id IS NOT NULL THEN trace_id || ':' || attr_run_id WHEN is_run_span THEN trace_id || ':' || span_id END AS run_id
FROM extracted
