-- @name prepare_spans
-- @description Every stored span with its role in the leak model (run, tool, model call, marker) and the run it belongs to. The analysis reads this temporary table.
-- @returns nothing; creates the temporary table report_spans
CREATE OR REPLACE TEMP TABLE report_spans AS
WITH RECURSIVE
base AS (
  SELECT
    *,
    (attrs['gen_ai.operation.name'] = 'invoke_agent' OR starts_with(name, 'invoke_agent')) AS is_run_span
  FROM spans
),
-- Walk up from every span to the nearest run span (or to the top of what was exported).
walk(trace_id, span_id, ancestor, depth, at_run) AS (
  SELECT trace_id, span_id, span_id, 0, is_run_span FROM base
  UNION ALL
  SELECT w.trace_id, w.span_id, p.span_id, w.depth + 1, p.is_run_span
  FROM walk w
  JOIN base c ON c.trace_id = w.trace_id AND c.span_id = w.ancestor
  JOIN base p ON p.trace_id = c.trace_id AND p.span_id = c.parent_span_id
  WHERE NOT w.at_run AND w.depth < 256
),
nearest_run AS (
  SELECT trace_id, span_id, arg_min(ancestor, depth) FILTER (WHERE at_run) AS run_span_id, arg_max(ancestor, depth) AS top_span_id
  FROM walk GROUP BY trace_id, span_id
),
traces_with_runs AS (SELECT DISTINCT trace_id FROM base WHERE is_run_span)
SELECT
  b.trace_id, b.span_id, b.parent_span_id, b.name, b.kind, b.start_ns, b.end_ns, b.status_code, b.status_message,
  b.service, b.attrs, b.events,
  CASE
    WHEN b.is_run_span THEN 'run'
    WHEN starts_with(b.name, 'afterstop.') THEN 'marker'
    WHEN b.attrs['gen_ai.operation.name'] = 'execute_tool' OR starts_with(b.name, 'execute_tool') THEN 'tool'
    WHEN b.attrs['gen_ai.operation.name'] IN ('chat', 'text_completion', 'generate_content')
      OR b.attrs['gen_ai.request.model'] IS NOT NULL THEN 'model'
    ELSE 'other'
  END AS role,
  coalesce(
    b.attrs['afterstop.run.id'],
    (SELECT coalesce(r.attrs['afterstop.run.id'], r.span_id) FROM base r WHERE r.trace_id = n.trace_id AND r.span_id = n.run_span_id),
    -- A trace without a run span: its run is the top of what was exported.
    CASE WHEN b.trace_id NOT IN (SELECT trace_id FROM traces_with_runs) THEN n.top_span_id END
  ) AS run_id,
  b.attrs['gen_ai.conversation.id'] AS conversation_id,
  b.attrs['gen_ai.tool.name'] AS tool_name,
  b.attrs['gen_ai.tool.call.id'] AS tool_call_id,
  coalesce(b.attrs['gen_ai.request.model'], b.attrs['gen_ai.response.model']) AS model,
  TRY_CAST(coalesce(b.attrs['gen_ai.usage.input_tokens'], b.attrs['gen_ai.usage.prompt_tokens']) AS BIGINT) AS input_tokens,
  TRY_CAST(coalesce(b.attrs['gen_ai.usage.output_tokens'], b.attrs['gen_ai.usage.completion_tokens']) AS BIGINT) AS output_tokens,
  TRY_CAST(b.attrs['afterstop.model.output_tokens_streamed'] AS BIGINT) AS output_tokens_streamed,
  TRY_CAST(b.attrs['afterstop.model.output_tokens_after_cancel'] AS BIGINT) AS output_tokens_after_cancel,
  TRY_CAST(b.attrs['gen_ai.response.time_to_first_chunk'] AS DOUBLE) AS time_to_first_chunk_s,
  -- The end of a cancellation, not a failure: error.type cancelled, or a status or exception naming an abort or cancel.
  (b.attrs['error.type'] = 'cancelled'
    OR regexp_matches(coalesce(b.status_message, ''), '(?i)abort|cancel')
    OR regexp_matches(coalesce(b.attrs['error.type'], ''), '(?i)abort|cancel')
    OR coalesce(len(list_filter(b.events, e -> e.name = 'exception'
         AND regexp_matches(coalesce(e.attrs['exception.type'], '') || ' ' || coalesce(e.attrs['exception.message'], ''), '(?i)abort|cancel'))), 0) > 0
  ) AS is_cancellation,
  b.file
FROM base b
JOIN nearest_run n ON n.trace_id = b.trace_id AND n.span_id = b.span_id;
