-- @name prepare_spans
-- @description Every stored span with its role in the leak model (run, tool, model call, marker) and the run it belongs to (METRICS.md, introduction): a span's afterstop.run.id; else its nearest invoke_agent ancestor; else, in a trace with invoke_agent spans, the trace's first run (a span whose parent was never exported is re-parented to the run); in a trace without any, the trace's root — unless the root is plainly not agent work (an HTTP span without GenAI attributes, a create_agent span), then each agent-like child of it is a run; a trace whose root was never exported holds one run, named after the missing root. The analysis reads this temporary table.
-- @returns nothing; creates the temporary table report_spans
CREATE OR REPLACE TEMP TABLE report_spans AS
WITH RECURSIVE
base AS (
  SELECT
    *,
    (coalesce(attrs['gen_ai.operation.name'] = 'invoke_agent', false) OR starts_with(name, 'invoke_agent')) AS is_run_span
  FROM spans
),
-- Walk up from every span to the nearest run span, or to the top of what was exported.
walk(trace_id, span_id, ancestor, depth, at_run) AS (
  SELECT trace_id, span_id, span_id, 0, is_run_span FROM base
  UNION ALL
  SELECT w.trace_id, w.span_id, p.span_id, w.depth + 1, p.is_run_span
  FROM walk w
  JOIN base c ON c.trace_id = w.trace_id AND c.span_id = w.ancestor
  JOIN base p ON p.trace_id = c.trace_id AND p.span_id = c.parent_span_id
  WHERE NOT w.at_run AND w.depth < 256
),
nearest AS (
  SELECT trace_id, span_id,
    arg_min(ancestor, depth) FILTER (WHERE at_run) AS run_span_id,
    arg_max(ancestor, depth) AS top_id,
    max(depth) AS top_depth
  FROM walk GROUP BY trace_id, span_id
),
-- The span just below the top of each walk (used when the top is not agent work).
below_top AS (
  SELECT w.trace_id, w.span_id, w.ancestor AS below_top_id
  FROM walk w JOIN nearest n ON n.trace_id = w.trace_id AND n.span_id = w.span_id
  WHERE w.depth = n.top_depth - 1
),
tops AS (
  SELECT
    b.trace_id, b.span_id,
    b.parent_span_id IS NOT NULL AS parent_missing,
    -- Plainly not agent work: an HTTP span without GenAI attributes, or a create_agent span.
    (coalesce(b.attrs['gen_ai.operation.name'] = 'create_agent', false) OR starts_with(b.name, 'create_agent')
      OR (len(list_filter(map_keys(b.attrs), k -> starts_with(k, 'http.'))) > 0
          AND len(list_filter(map_keys(b.attrs), k -> starts_with(k, 'gen_ai.') OR starts_with(k, 'ai.') OR starts_with(k, 'llm.'))) = 0)
    ) AS not_agent_work
  FROM base b
  WHERE b.span_id IN (SELECT top_id FROM nearest)
),
traces AS (
  SELECT trace_id,
    arg_min(coalesce(attrs['afterstop.run.id'], span_id), start_ns) FILTER (WHERE is_run_span) AS first_run_id,
    bool_or(is_run_span) AS has_run_span
  FROM base GROUP BY trace_id
),
roots AS (
  -- The run of a trace without invoke_agent spans: its root, when that is agent work.
  SELECT tp.trace_id, arg_min(tp.span_id, b.start_ns) AS root_run_id
  FROM tops tp JOIN base b ON b.trace_id = tp.trace_id AND b.span_id = tp.span_id
  WHERE NOT tp.parent_missing AND NOT tp.not_agent_work
  GROUP BY tp.trace_id
),
missing_roots AS (
  -- A trace whose root was never exported: its run is named after the missing parent of its earliest top span.
  SELECT n.trace_id, arg_min(b.parent_span_id, b.start_ns) AS missing_root_id
  FROM nearest n JOIN base b ON b.trace_id = n.trace_id AND b.span_id = n.top_id
  WHERE b.parent_span_id IS NOT NULL
  GROUP BY n.trace_id
),
assigned AS (
  SELECT
    b.*,
    coalesce(
      b.attrs['afterstop.run.id'],
      (SELECT coalesce(r.attrs['afterstop.run.id'], r.span_id) FROM base r WHERE r.trace_id = n.trace_id AND r.span_id = n.run_span_id),
      CASE WHEN tr.has_run_span THEN tr.first_run_id END,
      CASE
        WHEN tr.has_run_span THEN NULL
        WHEN tp.parent_missing THEN coalesce(ro.root_run_id, mr.missing_root_id)
        WHEN NOT tp.not_agent_work THEN n.top_id
        ELSE bt.below_top_id   -- below a root that is not agent work: its agent-like child, checked below
      END
    ) AS run_id,
    (NOT tr.has_run_span AND NOT tp.parent_missing AND tp.not_agent_work) AS under_non_agent_root,
    bt.below_top_id
  FROM base b
  JOIN nearest n ON n.trace_id = b.trace_id AND n.span_id = b.span_id
  JOIN traces tr ON tr.trace_id = b.trace_id
  LEFT JOIN tops tp ON tp.trace_id = n.trace_id AND tp.span_id = n.top_id
  LEFT JOIN below_top bt ON bt.trace_id = b.trace_id AND bt.span_id = b.span_id
  LEFT JOIN missing_roots mr ON mr.trace_id = b.trace_id
  LEFT JOIN roots ro ON ro.trace_id = b.trace_id
),
-- Under a root that is not agent work, only agent-like children are runs.
agent_like AS (
  SELECT trace_id, span_id FROM base
  WHERE len(list_filter(map_keys(attrs), k -> starts_with(k, 'gen_ai.') OR starts_with(k, 'ai.') OR starts_with(k, 'llm.')
        OR starts_with(k, 'openinference.') OR starts_with(k, 'traceloop.'))) > 0
)
SELECT
  a.trace_id, a.span_id, a.parent_span_id, a.name, a.kind, a.start_ns, a.end_ns, a.status_code, a.status_message,
  a.service, a.attrs, a.events,
  CASE
    WHEN a.is_run_span OR (a.run_id = a.span_id AND a.attrs['afterstop.run.id'] IS NULL) THEN 'run'
    WHEN starts_with(a.name, 'afterstop.') THEN 'marker'
    WHEN coalesce(a.attrs['gen_ai.operation.name'] = 'execute_tool', false) OR starts_with(a.name, 'execute_tool')
      OR a.name = 'ai.toolCall'                                          -- Vercel AI SDK
      OR coalesce(a.attrs['openinference.span.kind'] = 'TOOL', false)     -- OpenInference
      OR coalesce(a.attrs['traceloop.span.kind'] = 'tool', false) THEN 'tool'  -- OpenLLMetry
    WHEN coalesce(a.attrs['gen_ai.operation.name'] IN ('chat', 'text_completion', 'generate_content'), false)
      OR a.attrs['gen_ai.request.model'] IS NOT NULL
      OR a.name IN ('ai.streamText.doStream', 'ai.generateText.doGenerate', 'ai.streamObject.doStream', 'ai.generateObject.doGenerate')
      OR coalesce(a.attrs['openinference.span.kind'] = 'LLM', false) THEN 'model'
    ELSE 'other'
  END AS role,
  CASE
    WHEN a.under_non_agent_root AND (a.below_top_id IS NULL OR (a.trace_id, a.below_top_id) NOT IN (SELECT (trace_id, span_id) FROM agent_like)) THEN NULL
    ELSE a.run_id
  END AS run_id,
  coalesce(a.attrs['gen_ai.conversation.id'], a.attrs['session.id'], a.attrs['ai.telemetry.metadata.sessionId'], a.attrs['ai.telemetry.metadata.threadId']) AS conversation_id,
  coalesce(a.attrs['gen_ai.tool.name'], a.attrs['ai.toolCall.name'], a.attrs['tool.name'], a.attrs['traceloop.entity.name']) AS tool_name,
  coalesce(a.attrs['gen_ai.tool.call.id'], a.attrs['ai.toolCall.id'], a.attrs['tool_call.id']) AS tool_call_id,
  coalesce(a.attrs['gen_ai.request.model'], a.attrs['gen_ai.response.model'], a.attrs['ai.model.id'], a.attrs['llm.model_name']) AS model,
  TRY_CAST(coalesce(a.attrs['gen_ai.usage.input_tokens'], a.attrs['gen_ai.usage.prompt_tokens'], a.attrs['ai.usage.inputTokens'],
    a.attrs['ai.usage.promptTokens'], a.attrs['llm.token_count.prompt']) AS BIGINT) AS input_tokens,
  TRY_CAST(coalesce(a.attrs['gen_ai.usage.output_tokens'], a.attrs['gen_ai.usage.completion_tokens'], a.attrs['ai.usage.outputTokens'],
    a.attrs['ai.usage.completionTokens'], a.attrs['llm.token_count.completion']) AS BIGINT) AS output_tokens,
  TRY_CAST(a.attrs['afterstop.model.output_tokens_streamed'] AS BIGINT) AS output_tokens_streamed,
  TRY_CAST(a.attrs['afterstop.model.output_tokens_after_cancel'] AS BIGINT) AS output_tokens_after_cancel,
  coalesce(TRY_CAST(a.attrs['gen_ai.response.time_to_first_chunk'] AS DOUBLE), TRY_CAST(a.attrs['ai.response.msToFirstChunk'] AS DOUBLE) / 1000) AS time_to_first_chunk_s,
  -- The end of a cancellation, not a failure: error.type cancelled, or a status, error type or exception naming an abort or cancel.
  (coalesce(a.attrs['error.type'] = 'cancelled', false)
    OR regexp_matches(coalesce(a.status_message, ''), '(?i)abort|cancel')
    OR regexp_matches(coalesce(a.attrs['error.type'], ''), '(?i)abort|cancel')
    OR coalesce(len(list_filter(a.events, e -> e.name = 'exception'
         AND regexp_matches(coalesce(e.attrs['exception.type'], '') || ' ' || coalesce(e.attrs['exception.message'], ''), '(?i)abort|cancel'))), 0) > 0
  ) AS is_cancellation,
  -- Which convention wrote it, for spans that do not say (afterstop.framework).
  CASE
    WHEN a.attrs['afterstop.framework'] IS NOT NULL THEN a.attrs['afterstop.framework']
    WHEN a.attrs['ai.operationId'] IS NOT NULL OR starts_with(a.name, 'ai.') THEN 'vercel-ai'
    WHEN a.attrs['openinference.span.kind'] IS NOT NULL THEN 'openinference'
    WHEN a.attrs['traceloop.span.kind'] IS NOT NULL OR a.attrs['traceloop.entity.name'] IS NOT NULL THEN 'openllmetry'
  END AS framework,
  a.file
FROM assigned a;
