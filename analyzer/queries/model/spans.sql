-- @name spans
-- @description ClickHouse: the spans of the window from the OpenTelemetry Collector ClickHouse exporter's traces table (otel_traces) as the leak model reads them, into the session's temporary table spans, with the columns DuckDB's store gives (queries/macros.sql, span_rows): ids, times, kind and status (both the exporter's enum spellings: Internal / SPAN_KIND_INTERNAL, Error / STATUS_CODE_ERROR), service and scope, the attributes the model reads (afterstop, GenAI current and deprecated, Vercel AI SDK, OpenInference, OpenLLMetry keys) as columns, each span's role and, when it names it, its run. A Map attribute the span lacks reads as ''; it counts as absent.
-- @param database String   the exporter's database
-- @param table    String   its traces table
-- @param since_ns Int64    the first span time read, in ns since the epoch (the start of the day before the window's)
-- @param until_ns Int64    the end of what is read (the end of the day after the window's)
-- @returns nothing; creates the temporary table spans
-- @dialects clickhouse
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
    @process_key(@resource_attr('service.instance.id'), @resource_attr('host.name'), @resource_attr('host.id'), @resource_attr('process.pid'),
      nullIf(ServiceName, '')) AS process_key,
    @scope_name AS scope,
    SpanAttributes AS a,
    @attr_keys(SpanAttributes) AS ks,
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
    @span_attribute_columns,
    -- The exporter writes an array attribute as JSON (["id1","id2"]).
    if(name = 'afterstop.history.repair', @attr_list(a, 'afterstop.repair.tool_call_ids'), CAST([] AS Array(String))) AS repair_call_ids,
    if(length(event_names) > 0, nullIf(arrayStringConcat(arrayMap(e -> @attr(e, 'exception.message'), event_attrs), ','), ''), NULL) AS exception_text,
    toBool(@attr(a, 'error.type') = 'cancelled'
      OR match(coalesce(status_message, ''), '(?i)abort|cancel')
      OR match(@attr(a, 'error.type'), '(?i)abort|cancel')
      OR arrayExists((n, e) -> n = 'exception' AND match(concat(@attr(e, 'exception.type'), ' ', @attr(e, 'exception.message')), '(?i)abort|cancel'), event_names, event_attrs))
      AS is_cancellation,
    if(attr_run_id IS NOT NULL, false, arrayExists(k -> startsWith(k, 'http.'), ks)) AS has_http,
    if(attr_run_id IS NOT NULL, true, arrayExists(k -> startsWith(k, 'gen_ai.') OR startsWith(k, 'ai.') OR startsWith(k, 'llm.')
      OR startsWith(k, 'openinference.') OR startsWith(k, 'traceloop.'), ks)) AS agent_like,
    toBool(arrayExists(k -> k = 'ai.response.toolCalls'
      OR (startsWith(k, 'gen_ai.completion.') AND endsWith(k, '.id') AND position(k, '.tool_calls.') > 0)
      OR (startsWith(k, 'llm.output_messages.') AND endsWith(k, '.tool_call.id')), ks)) AS output_tool_calls,
    if(output_tool_calls, @attr_map(a), CAST(map() AS Map(String, String))) AS output_attrs,
    @is_run_span(name, op_name) AS is_run_span
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
  toLowCardinality(@span_role(name, op_name, oi_kind, traceloop_kind, has_request_model)) AS role,
  -- Keyed by trace too (run_key): span ids are unique only within a trace.
  CASE WHEN attr_run_id IS NOT NULL THEN @run_key(trace_id, attr_run_id) WHEN is_run_span THEN @run_key(trace_id, span_id) END AS run_id
FROM extracted
