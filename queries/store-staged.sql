-- @name store_staged
-- @description Add the valid staged spans to the store, with the attributes the leak model reads taken out as columns (once, here, not at every report). A span already stored, or twice in this batch (same trace and span id: a collector retry, a file read again after it grew), is kept once: the first copy, in file order.
-- @returns nothing; inserts into spans
INSERT INTO spans
SELECT
  trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns, status_code, status_message, service, scope, attrs, file,
  attrs['afterstop.run.id'],
  attrs['gen_ai.operation.name'],
  CASE
    WHEN attrs['afterstop.framework'] IS NOT NULL THEN attrs['afterstop.framework']
    WHEN attrs['ai.operationId'] IS NOT NULL OR starts_with(name, 'ai.') THEN 'vercel-ai'
    WHEN attrs['openinference.span.kind'] IS NOT NULL THEN 'openinference'
    WHEN attrs['traceloop.span.kind'] IS NOT NULL OR attrs['traceloop.entity.name'] IS NOT NULL THEN 'openllmetry'
  END,
  coalesce(attrs['gen_ai.conversation.id'], attrs['session.id'], attrs['ai.telemetry.metadata.sessionId'], attrs['ai.telemetry.metadata.threadId']),
  attrs['gen_ai.agent.name'],
  attrs['ai.telemetry.functionId'],
  coalesce(attrs['gen_ai.tool.name'], attrs['ai.toolCall.name'], attrs['tool.name'], attrs['traceloop.entity.name']),
  coalesce(attrs['gen_ai.tool.call.id'], attrs['ai.toolCall.id'], attrs['tool_call.id']),
  coalesce(attrs['gen_ai.request.model'], attrs['gen_ai.response.model'], attrs['ai.model.id'], attrs['llm.model_name']),
  TRY_CAST(coalesce(attrs['gen_ai.usage.input_tokens'], attrs['gen_ai.usage.prompt_tokens'], attrs['ai.usage.inputTokens'],
    attrs['ai.usage.promptTokens'], attrs['llm.token_count.prompt']) AS BIGINT),
  TRY_CAST(coalesce(attrs['gen_ai.usage.output_tokens'], attrs['gen_ai.usage.completion_tokens'], attrs['ai.usage.outputTokens'],
    attrs['ai.usage.completionTokens'], attrs['llm.token_count.completion']) AS BIGINT),
  TRY_CAST(attrs['afterstop.model.output_tokens_streamed'] AS BIGINT),
  TRY_CAST(attrs['afterstop.model.output_tokens_after_cancel'] AS BIGINT),
  coalesce(TRY_CAST(attrs['gen_ai.response.time_to_first_chunk'] AS DOUBLE), TRY_CAST(attrs['ai.response.msToFirstChunk'] AS DOUBLE) / 1000),
  attrs['afterstop.run.outcome'],
  attrs['ai.response.finishReason'],
  attrs['afterstop.tool.effect'],
  attrs['afterstop.tool.result'],
  attrs['afterstop.tool.idempotency_key'],
  attrs['afterstop.steer.id'],
  attrs['afterstop.steer.position'],
  CASE WHEN name = 'afterstop.history.repair'
       THEN coalesce(json_extract_string(attrs['afterstop.repair.tool_call_ids'], '$.values[*].stringValue'), []) END,
  attrs['afterstop.compensation.outcome'],
  attrs['process.pid'],
  attrs['error.type'],
  CASE WHEN events IS NOT NULL THEN nullif(list_string_agg(list_transform(events, e -> coalesce(e.attrs['exception.message'], ''))), '') END,
  attrs['openinference.span.kind'],
  attrs['traceloop.span.kind'],
  coalesce(attrs['error.type'] = 'cancelled', false)
    OR regexp_matches(coalesce(status_message, ''), '(?i)abort|cancel')
    OR regexp_matches(coalesce(attrs['error.type'], ''), '(?i)abort|cancel')
    OR coalesce(len(list_filter(events, e -> e.name = 'exception'
         AND regexp_matches(coalesce(e.attrs['exception.type'], '') || ' ' || coalesce(e.attrs['exception.message'], ''), '(?i)abort|cancel'))), 0) > 0,
  len(list_filter(map_keys(attrs), k -> starts_with(k, 'http.'))) > 0,
  len(list_filter(map_keys(attrs), k -> starts_with(k, 'gen_ai.') OR starts_with(k, 'ai.') OR starts_with(k, 'llm.')
    OR starts_with(k, 'openinference.') OR starts_with(k, 'traceloop.'))) > 0,
  len(list_filter(map_keys(attrs), k -> k = 'ai.response.toolCalls'
    OR (starts_with(k, 'gen_ai.completion.') AND ends_with(k, '.id') AND contains(k, '.tool_calls.'))
    OR (starts_with(k, 'llm.output_messages.') AND ends_with(k, '.tool_call.id')))) > 0
FROM (
  SELECT * FROM staged WHERE valid
  QUALIFY row_number() OVER (PARTITION BY trace_id, span_id ORDER BY file) = 1
) AS new
WHERE NOT EXISTS (SELECT 1 FROM spans AS kept WHERE kept.trace_id = new.trace_id AND kept.span_id = new.span_id);
