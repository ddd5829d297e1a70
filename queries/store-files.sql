-- @name store_files
-- @description Read OTLP/JSON files (an ExportTraceServiceRequest per line, or one document per file) straight into the store, one row per span, in one pass: ids, times, kind, status, service and scope, and the attributes the leak model reads taken out as columns (afterstop, GenAI current and deprecated, Vercel AI SDK, OpenInference, OpenLLMetry keys; the first value of a repeated key), with each span's role and, when the span names it, its run. A span without trace id, span id or times is stored with NULLs there: file-counts.sql counts it and the ingest removes it. Duplicates are removed afterwards (dedupe-spans.sql); runs of spans that do not name theirs are assigned by assign-runs.sql.
-- @param files       VARCHAR[]  the files to read, all compressed the same way
-- @param compression VARCHAR    uncompressed, gzip or zstd
-- @param source      VARCHAR    the name to record as each span's file (NULL: the file read)
-- @param max_object_bytes UBIGINT the longest line (or document) read; keep it near the real size: DuckDB sizes its read buffers by it
-- @param ingest_id   INTEGER    this ingest's number (next-ingest-id.sql)
-- @returns nothing; inserts into spans
INSERT INTO spans BY NAME
WITH raw AS (
  SELECT filename, resourceSpans
  FROM read_json($files,
    format = 'auto',
    compression = $compression,
    filename = true,
    maximum_object_size = $max_object_bytes,
    sample_size = 1,
    columns = {resourceSpans: 'STRUCT(
      resource STRUCT(attributes STRUCT(key VARCHAR, value STRUCT(stringValue VARCHAR, boolValue BOOLEAN, intValue VARCHAR, doubleValue VARCHAR, arrayValue JSON, kvlistValue JSON, bytesValue VARCHAR))[]),
      scopeSpans STRUCT(
        scope STRUCT(name VARCHAR),
        spans STRUCT(
          traceId VARCHAR, spanId VARCHAR, parentSpanId VARCHAR, name VARCHAR, kind VARCHAR,
          startTimeUnixNano VARCHAR, endTimeUnixNano VARCHAR,
          attributes STRUCT(key VARCHAR, value STRUCT(stringValue VARCHAR, boolValue BOOLEAN, intValue VARCHAR, doubleValue VARCHAR, arrayValue JSON, kvlistValue JSON, bytesValue VARCHAR))[],
          events STRUCT(timeUnixNano VARCHAR, name VARCHAR, attributes STRUCT(key VARCHAR, value STRUCT(stringValue VARCHAR, boolValue BOOLEAN, intValue VARCHAR, doubleValue VARCHAR, arrayValue JSON, kvlistValue JSON, bytesValue VARCHAR))[])[],
          status STRUCT(code VARCHAR, message VARCHAR)
        )[]
      )[]
    )[]'})
),
resource_spans AS (SELECT filename, unnest(resourceSpans) AS rs FROM raw),
scope_spans AS (
  SELECT filename,
    list_filter(rs.resource.attributes, a -> a.key = 'service.name')[1].value.stringValue AS service,
    unnest(rs.scopeSpans) AS ss
  FROM resource_spans
),
flat AS (SELECT filename, service, ss.scope.name AS scope, unnest(ss.spans) AS s FROM scope_spans),
-- Attributes as two lists, keys and values (as text); attr(ks, vs, key) looks one up.
read AS (
  SELECT
    otlp_id(s.traceId) AS trace_id,
    otlp_id(s.spanId) AS span_id,
    otlp_id(s.parentSpanId) AS parent_span_id,
    coalesce(s.name, '') AS name,
    otlp_kind(s.kind) AS kind,
    TRY_CAST(s.startTimeUnixNano AS BIGINT) AS start_ns,
    TRY_CAST(s.endTimeUnixNano AS BIGINT) AS end_ns,
    otlp_status(s.status.code) AS status_code,
    nullif(s.status.message, '') AS status_message,
    service,
    scope,
    coalesce($source, filename) AS file,
    list_transform(s.attributes, a -> a.key) AS ks,
    list_transform(s.attributes, a -> otlp_value(a.value)) AS vs,
    CASE WHEN len(s.events) > 0
         THEN list_transform(s.events, e -> {'name': e.name, 'ks': list_transform(e.attributes, a -> a.key), 'vs': list_transform(e.attributes, a -> otlp_value(a.value))})
    END AS events
  FROM flat
),
extracted AS (
  SELECT
    trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns, status_code, status_message, service, scope, file,
    attr(ks, vs, 'afterstop.run.id') AS attr_run_id,
    attr(ks, vs, 'gen_ai.operation.name') AS op_name,
    CASE
      WHEN attr(ks, vs, 'afterstop.framework') IS NOT NULL THEN attr(ks, vs, 'afterstop.framework')
      WHEN attr(ks, vs, 'ai.operationId') IS NOT NULL OR starts_with(name, 'ai.') THEN 'vercel-ai'
      WHEN attr(ks, vs, 'openinference.span.kind') IS NOT NULL THEN 'openinference'
      WHEN attr(ks, vs, 'traceloop.span.kind') IS NOT NULL OR attr(ks, vs, 'traceloop.entity.name') IS NOT NULL THEN 'openllmetry'
    END AS framework,
    coalesce(attr(ks, vs, 'gen_ai.conversation.id'), attr(ks, vs, 'session.id'), attr(ks, vs, 'ai.telemetry.metadata.sessionId'),
      attr(ks, vs, 'ai.telemetry.metadata.threadId')) AS conversation_id,
    attr(ks, vs, 'gen_ai.agent.name') AS agent_name,
    attr(ks, vs, 'ai.telemetry.functionId') AS function_id,
    coalesce(attr(ks, vs, 'gen_ai.tool.name'), attr(ks, vs, 'ai.toolCall.name'), attr(ks, vs, 'tool.name'), attr(ks, vs, 'traceloop.entity.name')) AS tool_name,
    coalesce(attr(ks, vs, 'gen_ai.tool.call.id'), attr(ks, vs, 'ai.toolCall.id'), attr(ks, vs, 'tool_call.id')) AS tool_call_id,
    coalesce(attr(ks, vs, 'gen_ai.request.model'), attr(ks, vs, 'gen_ai.response.model'), attr(ks, vs, 'ai.model.id'), attr(ks, vs, 'llm.model_name')) AS model,
    attr(ks, vs, 'gen_ai.request.model') IS NOT NULL AS has_request_model,
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
    attr(ks, vs, 'afterstop.tool.result') AS result,
    attr(ks, vs, 'afterstop.tool.idempotency_key') AS idempotency_key,
    attr(ks, vs, 'afterstop.steer.id') AS steer_id,
    attr(ks, vs, 'afterstop.steer.position') AS steer_position,
    CASE WHEN name = 'afterstop.history.repair'
         THEN coalesce(json_extract_string(attr(ks, vs, 'afterstop.repair.tool_call_ids'), '$.values[*].stringValue'), []) END AS repair_call_ids,
    attr(ks, vs, 'afterstop.compensation.outcome') AS compensation_outcome,
    attr(ks, vs, 'process.pid') AS pid,
    attr(ks, vs, 'error.type') AS error_type,
    CASE WHEN events IS NOT NULL
         THEN nullif(list_string_agg(list_transform(events, e -> coalesce(attr(e.ks, e.vs, 'exception.message'), ''))), '') END AS exception_text,
    attr(ks, vs, 'openinference.span.kind') AS oi_kind,
    attr(ks, vs, 'traceloop.span.kind') AS traceloop_kind,
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
    -- Tool call ids in a model's output: those spans keep all their attributes (prepare-tool-calls.sql reads them).
    coalesce(len(list_filter(ks, k -> k = 'ai.response.toolCalls'
      OR (starts_with(k, 'gen_ai.completion.') AND ends_with(k, '.id') AND contains(k, '.tool_calls.'))
      OR (starts_with(k, 'llm.output_messages.') AND ends_with(k, '.tool_call.id')))) > 0, false) AS output_tool_calls,
    ks, vs
  FROM read
)
SELECT
  * EXCLUDE (ks, vs),
  CASE WHEN output_tool_calls THEN map(ks, vs) END AS output_attrs,
  span_role(name, op_name, oi_kind, traceloop_kind, has_request_model) AS role,
  -- Its run when it names it; a run span is its own run.
  CASE WHEN attr_run_id IS NOT NULL THEN attr_run_id WHEN is_run_span(name, op_name) THEN span_id END AS run_id,
  $ingest_id AS ingest_id
FROM extracted;
