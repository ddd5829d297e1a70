-- Expressions the model files share, written once: `@name(args)` in a model file is the body below with
-- its parameters replaced (analyzer/sql/render-query.ts). A body is SQL both engines read alike, and may
-- use the constructs of analyzer/sql/dialect.ts.

-- @fragment run_key(trace, local_id)
-- A run's key: its trace id and its id within the trace (its run span's id, or the afterstop.run.id its
-- spans name). Span ids are unique only within a trace: the same ids in two traces are two runs.
trace || ':' || local_id

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
-- What a span is, as far as the span alone tells it: a run, one of afterstop's markers, a tool call, a
-- model call (GenAI, the Vercel AI SDK, OpenInference, OpenLLMetry), or other.
CASE
  WHEN @is_run_span(name, op_name) THEN 'run'
  WHEN @starts_with(name, 'afterstop.') THEN 'marker'
  WHEN coalesce(op_name = 'execute_tool', false) OR @starts_with(name, 'execute_tool')
    OR name = 'ai.toolCall'
    OR coalesce(oi_kind = 'TOOL', false)
    OR coalesce(traceloop_kind = 'tool', false) THEN 'tool'
  WHEN coalesce(op_name IN ('chat', 'text_completion', 'generate_content'), false)
    OR has_request_model
    OR name IN ('ai.streamText.doStream', 'ai.generateText.doGenerate', 'ai.streamObject.doStream', 'ai.generateObject.doGenerate')
    OR coalesce(oi_kind = 'LLM', false) THEN 'model'
  ELSE 'other'
END
