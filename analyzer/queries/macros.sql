-- Generated from queries/model/macros.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name macros
-- @description Helpers for reading OTLP/JSON, created per connection (temporary): ids, kinds, status codes, attribute maps.
-- @returns nothing

-- An OTLP AnyValue as text. intValue arrives as a string or a number; both read as text here.
CREATE OR REPLACE TEMP MACRO otlp_value(v) AS
  coalesce(v.stringValue, v.intValue, v.doubleValue, v.boolValue::VARCHAR, v.arrayValue::VARCHAR, v.kvlistValue::VARCHAR, v.bytesValue);

-- An attribute by key from the lists of keys and values store-files.sql reads (the first value of a repeated key).
CREATE OR REPLACE TEMP MACRO attr(ks, vs, k) AS vs[list_position(ks, k)];

-- A resource attribute by key, as text, from an OTLP/JSON resource's attributes (store-files.sql).
CREATE OR REPLACE TEMP MACRO resource_attr(attrs, k) AS otlp_value(list_filter(attrs, a -> a.key = k)[1].value);

-- The process that wrote an OTLP/JSON resource's spans (fragments.sql, process_key), from its attributes and service.
CREATE OR REPLACE TEMP MACRO otlp_process_key(attrs, service) AS
  coalesce((resource_attr(attrs, 'service.instance.id')),
    CASE WHEN coalesce((resource_attr(attrs, 'host.name')), (resource_attr(attrs, 'host.id'))) IS NOT NULL AND (resource_attr(attrs, 'process.pid')) IS NOT NULL THEN coalesce((resource_attr(attrs, 'host.name')), (resource_attr(attrs, 'host.id'))) || '/' || (resource_attr(attrs, 'process.pid')) END,
    service);

-- Trace and span ids are hex in OTLP/JSON; some writers use base64 (the protobuf JSON mapping).
CREATE OR REPLACE TEMP MACRO otlp_id(id) AS
  CASE
    WHEN id IS NULL OR id = '' THEN NULL
    -- hex ids are 16 or 32 characters; base64 ones 12 or 24 (cheaper to tell by length than by pattern)
    WHEN length(id) IN (16, 32) THEN lower(id)
    ELSE coalesce(try(lower(to_hex(from_base64(id)))), lower(id))
  END;

CREATE OR REPLACE TEMP MACRO otlp_kind(k) AS
  coalesce(TRY_CAST(k AS TINYINT),
    CASE k WHEN 'SPAN_KIND_INTERNAL' THEN 1 WHEN 'SPAN_KIND_SERVER' THEN 2 WHEN 'SPAN_KIND_CLIENT' THEN 3
           WHEN 'SPAN_KIND_PRODUCER' THEN 4 WHEN 'SPAN_KIND_CONSUMER' THEN 5 ELSE 0 END);

CREATE OR REPLACE TEMP MACRO otlp_status(c) AS
  coalesce(TRY_CAST(c AS TINYINT),
    CASE c WHEN 'STATUS_CODE_OK' THEN 1 WHEN 'STATUS_CODE_ERROR' THEN 2 ELSE 0 END);

-- Grafana Tempo's Parquet blocks (store-tempo-v4.sql, store-tempo-v5.sql): ids are bytes (empty for no parent).
CREATE OR REPLACE TEMP MACRO tempo_id(b) AS CASE WHEN b IS NULL OR octet_length(b) = 0 THEN NULL ELSE lower(hex(b)) END;

-- A Tempo attribute's value as text, as otlp_value gives it: a scalar is a one-element list of its type; an
-- array the whole list, as the OTLP/JSON arrayValue it was; kvlists and mixed arrays are JSON already.
CREATE OR REPLACE TEMP MACRO tempo_value(a) AS
  CASE
    WHEN a.ValueUnsupported IS NOT NULL THEN a.ValueUnsupported
    WHEN a.IsArray THEN json_object('values', coalesce(
      nullif(list_transform(a."Value", x -> json_object('stringValue', x)), []),
      nullif(list_transform(a.ValueInt, x -> json_object('intValue', x::VARCHAR)), []),
      nullif(list_transform(a.ValueDouble, x -> json_object('doubleValue', x)), []),
      list_transform(a.ValueBool, x -> json_object('boolValue', x))))::VARCHAR
    ELSE coalesce(a."Value"[1], a.ValueInt[1]::VARCHAR, a.ValueDouble[1]::VARCHAR, a.ValueBool[1]::VARCHAR)
  END;

-- A Tempo resource attribute by key, as text (tempo_value), NULL when absent.
CREATE OR REPLACE TEMP MACRO tempo_resource_attr(attrs, k) AS tempo_value(list_filter(attrs, a -> a."Key" = k)[1]);

-- A Tempo span's events as span_rows reads them.
CREATE OR REPLACE TEMP MACRO tempo_events(evs) AS
  CASE WHEN len(evs) > 0
       THEN list_transform(evs, e -> {'name': e."Name", 'ks': list_transform(e.Attrs, a -> a."Key"), 'vs': list_transform(e.Attrs, a -> tempo_value(a))})
  END;

-- A Tempo block's spans, a row each: the trace's id, the resource's service, the scope's name, the span, and the file.
CREATE OR REPLACE TEMP MACRO tempo_spans(f) AS TABLE
WITH traces AS (SELECT TraceID, unnest(rs) AS r FROM read_parquet(f)),
scopes AS (
  SELECT TraceID, r.Resource.ServiceName AS service,
    coalesce((tempo_resource_attr(r.Resource.Attrs, 'service.instance.id')),
      CASE WHEN coalesce((tempo_resource_attr(r.Resource.Attrs, 'host.name')), (tempo_resource_attr(r.Resource.Attrs, 'host.id'))) IS NOT NULL AND (tempo_resource_attr(r.Resource.Attrs, 'process.pid')) IS NOT NULL THEN coalesce((tempo_resource_attr(r.Resource.Attrs, 'host.name')), (tempo_resource_attr(r.Resource.Attrs, 'host.id'))) || '/' || (tempo_resource_attr(r.Resource.Attrs, 'process.pid')) END,
      (nullif(r.Resource.ServiceName, ''))) AS process_key,
    unnest(r.ss) AS s
  FROM traces
)
SELECT TraceID, service, process_key, s.Scope."Name" AS scope, unnest(s.Spans) AS sp, f AS file FROM scopes;

-- Tempo spans (tempo_spans, with `columns`: the attributes Tempo took out of Attrs, as {k, v}) as span_rows reads them.
CREATE OR REPLACE TEMP MACRO tempo_read(src) AS TABLE
SELECT
  tempo_id(TraceID) AS trace_id,
  tempo_id(sp.SpanID) AS span_id,
  tempo_id(sp.ParentSpanID) AS parent_span_id,
  coalesce(sp."Name", '') AS name,
  TRY_CAST(sp.Kind AS TINYINT) AS kind,
  TRY_CAST(sp.StartTimeUnixNano AS BIGINT) AS start_ns,
  TRY_CAST(sp.StartTimeUnixNano + sp.DurationNano AS BIGINT) AS end_ns,
  coalesce(TRY_CAST(sp.StatusCode AS TINYINT), 0) AS status_code,
  nullif(sp.StatusMessage, '') AS status_message,
  nullif(service, '') AS service,
  process_key,
  nullif(scope, '') AS scope,
  file,
  list_concat(list_transform(sp.Attrs, a -> a."Key"), list_transform(columns, e -> e.k)) AS ks,
  list_concat(list_transform(sp.Attrs, a -> tempo_value(a)), list_transform(columns, e -> e.v)) AS vs,
  tempo_events(sp.Events) AS events
FROM query_table(src);

-- The store's folder for a service (write-span-files.sql): the name itself when it is at most 60 bytes, else its
-- first 15 characters, "~" and 16 hex digits of its MD5, so that the folder, escaped by DuckDB (3 bytes for each
-- byte of a non-ASCII character), stays within the file system's 255 bytes and readable. The spans keep the name.
CREATE OR REPLACE TEMP MACRO service_folder(s) AS
  CASE WHEN s IS NULL OR strlen(s) <= 60 THEN s ELSE left(s, 15) || '~' || left(md5(s), 16) END;

-- The day (UTC) a time in ns since the epoch falls on: the store's partitions (write-span-files.sql).
CREATE OR REPLACE TEMP MACRO span_day(ns) AS CAST(make_timestamp(CAST(ns // 1000 AS BIGINT)) AS DATE);

-- A run's key (fragments.sql, run_key): its trace id and its id within the trace.
CREATE OR REPLACE TEMP MACRO run_key(trace_id, local_id) AS trace_id || ':' || local_id;

-- Is a span a run (invoke_agent)? (fragments.sql)
CREATE OR REPLACE TEMP MACRO is_run_span(name, op_name) AS (coalesce(op_name = 'invoke_agent', false) OR starts_with(name, 'invoke_agent'));

-- A span's role in the leak model as far as the span alone tells it (fragments.sql; assign-runs.sql may make a
-- foreign span a run).
CREATE OR REPLACE TEMP MACRO span_role(name, op_name, oi_kind, traceloop_kind, has_request_model) AS
  CASE
    WHEN (coalesce(op_name = 'invoke_agent', false) OR starts_with(name, 'invoke_agent')) THEN 'run'
    WHEN starts_with(name, 'afterstop.') THEN 'marker'
    WHEN coalesce(op_name = 'execute_tool', false) OR starts_with(name, 'execute_tool')
      OR starts_with(name, 'tools/call')
      OR name = 'ai.toolCall'
      OR coalesce(oi_kind = 'TOOL', false)
      OR coalesce(traceloop_kind = 'tool', false) THEN 'tool'
    WHEN coalesce(op_name IN ('chat', 'text_completion', 'generate_content'), false)
      OR has_request_model
      OR name IN ('ai.streamText.doStream', 'ai.generateText.doGenerate', 'ai.streamObject.doStream', 'ai.generateObject.doGenerate')
      OR coalesce(oi_kind = 'LLM', false) THEN 'model'
    ELSE 'other'
  END;

-- One stored row per span read (store-files.sql, store-tempo-block.sql): from a relation `src` of spans as
-- read (ids, times, kind, status, service, process_key, scope, file, attribute keys `ks` and values as text `vs`, events
-- as {name, ks, vs}), the attributes the leak model reads taken out as columns (afterstop, GenAI current and
-- deprecated, Vercel AI SDK, OpenInference, OpenLLMetry keys; the first value of a repeated key), each
-- span's role and, when the span names it, its run.
CREATE OR REPLACE TEMP MACRO span_rows(src) AS TABLE
WITH extracted AS (
  SELECT
    trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns, status_code, status_message, service, process_key, scope, file,
    attr(ks, vs, 'afterstop.run.id') AS attr_run_id,
    attr(ks, vs, 'gen_ai.operation.name') AS op_name,
    CASE
      WHEN attr(ks, vs, 'afterstop.framework') IS NOT NULL THEN attr(ks, vs, 'afterstop.framework')
      WHEN attr(ks, vs, 'ai.operationId') IS NOT NULL OR starts_with(name, 'ai.') THEN 'vercel-ai'
      WHEN scope = 'gcp.vertex.agent' THEN 'google-adk'
      WHEN scope = 'strands-agents' THEN 'strands'
      WHEN scope = 'pydantic-ai' THEN 'pydantic-ai'
      WHEN attr(ks, vs, 'gen_ai.system') = 'autogen' THEN 'autogen'
      WHEN attr(ks, vs, 'openinference.span.kind') IS NOT NULL THEN
        CASE WHEN scope = 'openinference.instrumentation.crewai' THEN 'crewai'
             WHEN scope = 'openinference.instrumentation.openai_agents' THEN 'openai-agents-python'
             ELSE 'openinference' END
      WHEN attr(ks, vs, 'traceloop.span.kind') IS NOT NULL OR attr(ks, vs, 'traceloop.entity.name') IS NOT NULL THEN 'openllmetry'
    END AS framework,
    coalesce(attr(ks, vs, 'gen_ai.conversation.id'), attr(ks, vs, 'session.id'), attr(ks, vs, 'ai.telemetry.metadata.sessionId'),
      attr(ks, vs, 'ai.telemetry.metadata.threadId')) AS conversation_id,
    coalesce(attr(ks, vs, 'afterstop.run.uninstrumented'),
      CASE WHEN scope = 'gcp.vertex.agent' THEN '@google/adk' WHEN scope = 'strands-agents' THEN '@strands-agents/sdk' END) AS uninstrumented,
    attr(ks, vs, 'gen_ai.agent.name') AS agent_name,
    attr(ks, vs, 'ai.telemetry.functionId') AS function_id,
    coalesce(attr(ks, vs, 'gen_ai.tool.name'), attr(ks, vs, 'ai.toolCall.name'), attr(ks, vs, 'tool.name'), attr(ks, vs, 'traceloop.entity.name')) AS tool_name,
    coalesce(attr(ks, vs, 'gen_ai.tool.call.id'), attr(ks, vs, 'ai.toolCall.id'), attr(ks, vs, 'tool_call.id')) AS tool_call_id,
    coalesce(attr(ks, vs, 'gen_ai.request.model'), attr(ks, vs, 'gen_ai.response.model'), attr(ks, vs, 'ai.model.id'), attr(ks, vs, 'llm.model_name')) AS model,
    coalesce(attr(ks, vs, 'gen_ai.provider.name'), attr(ks, vs, 'gen_ai.system'), attr(ks, vs, 'ai.model.provider'), attr(ks, vs, 'llm.provider'),
      attr(ks, vs, 'llm.system')) AS provider,
    CAST(attr(ks, vs, 'gen_ai.request.model') IS NOT NULL AS BOOLEAN) AS has_request_model,
    TRY_CAST(coalesce(attr(ks, vs, 'gen_ai.usage.input_tokens'), attr(ks, vs, 'gen_ai.usage.prompt_tokens'), attr(ks, vs, 'ai.usage.inputTokens'),
      attr(ks, vs, 'ai.usage.promptTokens'), attr(ks, vs, 'llm.token_count.prompt')) AS BIGINT) AS input_tokens,
    TRY_CAST(coalesce(attr(ks, vs, 'gen_ai.usage.output_tokens'), attr(ks, vs, 'gen_ai.usage.completion_tokens'), attr(ks, vs, 'ai.usage.outputTokens'),
      attr(ks, vs, 'ai.usage.completionTokens'), attr(ks, vs, 'llm.token_count.completion')) AS BIGINT) AS output_tokens,
    TRY_CAST(attr(ks, vs, 'afterstop.model.output_tokens_streamed') AS BIGINT) AS output_tokens_streamed,
    TRY_CAST(attr(ks, vs, 'afterstop.model.output_tokens_after_cancel') AS BIGINT) AS output_tokens_after_cancel,
    coalesce(TRY_CAST(attr(ks, vs, 'gen_ai.response.time_to_first_chunk') AS DOUBLE),
      TRY_CAST(attr(ks, vs, 'ai.response.msToFirstChunk') AS DOUBLE) / 1000) AS time_to_first_chunk_s,
    attr(ks, vs, 'afterstop.run.outcome') AS outcome,
    attr(ks, vs, 'ai.response.finishReason') AS finish_reason,
    attr(ks, vs, 'afterstop.tool.effect') AS effect,
    attr(ks, vs, 'afterstop.tool.kind') AS tool_kind,
    attr(ks, vs, 'afterstop.tool.out_of_sight') AS out_of_sight,
    attr(ks, vs, 'afterstop.tool.result') AS result,
    attr(ks, vs, 'afterstop.tool.idempotency_key') AS idempotency_key,
    attr(ks, vs, 'afterstop.steer.id') AS steer_id,
    attr(ks, vs, 'afterstop.steer.position') AS steer_position,
    attr(ks, vs, 'afterstop.compensation.outcome') AS compensation_outcome,
    attr(ks, vs, 'afterstop.tool.commit.evidence') AS commit_evidence,
    TRY_CAST(attr(ks, vs, 'afterstop.tool.commit.unanswered_ms') AS DOUBLE) AS commit_unanswered_ms,
    TRY_CAST(attr(ks, vs, 'afterstop.tool.commit.count') AS BIGINT) AS commit_count,
    TRY_CAST(attr(ks, vs, 'afterstop.tool.commit.pending') AS BIGINT) AS commit_pending,
    attr(ks, vs, 'afterstop.tool.body_detached') AS body_detached,
    attr(ks, vs, 'afterstop.guard.idempotency_key') AS guard_key,
    attr(ks, vs, 'afterstop.guard.fence.passed') AS fence_passed,
    attr(ks, vs, 'afterstop.cancel.source') AS cancel_source,
    attr(ks, vs, 'process.pid') AS pid,
    attr(ks, vs, 'mcp.method.name') AS mcp_method,
    attr(ks, vs, 'jsonrpc.request.id') AS mcp_request_id,
    attr(ks, vs, 'afterstop.mcp.side') AS mcp_side,
    attr(ks, vs, 'afterstop.mcp.server') AS mcp_server,
    attr(ks, vs, 'afterstop.mcp.cancel.via') AS mcp_cancel_via,
    attr(ks, vs, 'afterstop.mcp.handler') AS mcp_handler,
    attr(ks, vs, 'afterstop.tool.foreign') AS tool_foreign,
    lower(attr(ks, vs, 'afterstop.tool.commit.request_span_id')) AS request_span_id,
    TRY_CAST(attr(ks, vs, 'afterstop.tool.commit.round_trip_ms') AS DOUBLE) AS commit_round_trip_ms,
    coalesce(attr(ks, vs, 'db.system.name'), attr(ks, vs, 'db.system')) AS db_system,
    attr(ks, vs, 'messaging.system') AS messaging_system,
    TRY_CAST(coalesce(attr(ks, vs, 'http.response.status_code'), attr(ks, vs, 'http.status_code')) AS BIGINT) AS http_status,
    coalesce(attr(ks, vs, 'http.request.method'), attr(ks, vs, 'http.method')) AS http_method,
    attr(ks, vs, 'error.type') AS error_type,
    attr(ks, vs, 'openinference.span.kind') AS oi_kind,
    attr(ks, vs, 'traceloop.span.kind') AS traceloop_kind,
    CASE WHEN name = 'afterstop.history.repair'
         THEN coalesce(json_extract_string(attr(ks, vs, 'afterstop.repair.tool_call_ids'), '$.values[*].stringValue'), []) END AS repair_call_ids,
    CASE WHEN events IS NOT NULL
         THEN nullif(list_string_agg(list_transform(events, e -> coalesce(attr(e.ks, e.vs, 'exception.message'), ''))), '') END AS exception_text,
    coalesce(attr(ks, vs, 'error.type') = 'cancelled', false)
      OR regexp_matches(coalesce(status_message, ''), '(?i)abort|cancel')
      OR regexp_matches(coalesce(attr(ks, vs, 'error.type'), ''), '(?i)abort|cancel')
      OR coalesce(len(list_filter(events, e -> e.name = 'exception'
           AND regexp_matches(coalesce(attr(e.ks, e.vs, 'exception.type'), '') || ' ' || coalesce(attr(e.ks, e.vs, 'exception.message'), ''), '(?i)abort|cancel'))), 0) > 0
      AS is_cancellation,
    -- Where a span sits among foreign spans (assign-runs.sql). A span that names its run is agent work:
    -- these are not looked at for it, which saves most of their cost on instrumented agents' spans.
    CASE WHEN attr(ks, vs, 'afterstop.run.id') IS NOT NULL THEN false
         ELSE coalesce(len(list_filter(ks, k -> starts_with(k, 'http.'))) > 0, false) END AS has_http,
    CASE WHEN attr(ks, vs, 'afterstop.run.id') IS NOT NULL THEN true
         ELSE coalesce(len(list_filter(ks, k -> starts_with(k, 'gen_ai.') OR starts_with(k, 'ai.') OR starts_with(k, 'llm.')
           OR starts_with(k, 'openinference.') OR starts_with(k, 'traceloop.'))) > 0, false) END AS agent_like,
    -- Tool call ids in a model's output: those spans keep all their attributes (tool-call-facts.sql reads them).
    coalesce(len(list_filter(ks, k -> k = 'ai.response.toolCalls'
      OR (starts_with(k, 'gen_ai.completion.') AND ends_with(k, '.id') AND contains(k, '.tool_calls.'))
      OR (starts_with(k, 'llm.output_messages.') AND ends_with(k, '.tool_call.id')))) > 0, false) AS output_tool_calls,
    ks, vs
  FROM query_table(src)
)
SELECT
  * EXCLUDE (ks, vs),
  CASE WHEN output_tool_calls THEN map(ks, vs) END AS output_attrs,
  span_role(name, op_name, oi_kind, traceloop_kind, has_request_model) AS role,
  -- Its run when it names it; a run span is its own run. Keyed by trace too (run_key): span ids are unique
  -- only within a trace.
  CASE WHEN attr_run_id IS NOT NULL THEN run_key(trace_id, attr_run_id) WHEN is_run_span(name, op_name) THEN run_key(trace_id, span_id) END AS run_id
FROM extracted;
