-- @name model_call_facts
-- @description The model calls that may have billed tokens after Stop, per cancelled run of the traces just touched (DuckDB: touched_traces, inserted into the store's model_call_facts at ingest, so that a report over an unchanged store does not read the spans again; ClickHouse: every trace read, the session's model_call_facts): each model span that ended after C, or an aborted model call of an inferred cancel that started before C (it ended at C by definition: it is the abort evidence), with its token counts and when its first chunk came (f_ns). And one row (cut_step, no span) per run stopped during a model call whose span was never exported (the AI SDK never ends the step in flight): known so during the first step (no model or tool span at all), or when the root says a step was cut (finish reason "other") and no exported model span is that step. prepare-tokens.sql counts and prices them for the report's window.
-- @returns nothing; fills model_call_facts (with the run's service, agent, framework, conversation_id, start, run_start_ns, and C, c_ns)
@store_insert(model_call_facts)
SELECT s.run_id, s.trace_id, s.span_id, s.model, s.provider, s.start_ns, s.end_ns, s.input_tokens, s.output_tokens, s.output_tokens_after_cancel,
  s.start_ns + CAST(coalesce(@round(s.time_to_first_chunk_s * 1e9, 0), 0) AS BIGINT) AS f_ns,
  false AS cut_step,
  -- The run's group, conversation, start (the report's window) and C: the report reads them without joining the runs.
  r.service, r.agent, r.framework, r.conversation_id, r.start_ns AS run_start_ns, r.c_ns
FROM @assigned_spans AS s JOIN run_facts AS r ON r.run_id = s.run_id
WHERE r.cancelled AND s.role = 'model' AND @touched(s.trace_id)
  AND (s.end_ns > r.c_ns OR (r.cancel_inferred AND s.is_cancellation AND s.start_ns < r.c_ns))
UNION ALL
SELECT r.run_id, r.trace_id, NULL, any_value(s.model), any_value(s.provider), NULL, NULL, NULL, NULL, NULL, NULL, true,
  r.service, r.agent, r.framework, r.conversation_id, r.start_ns, r.c_ns
FROM run_facts AS r JOIN @assigned_spans AS s ON s.run_id = r.run_id
WHERE r.cancel_inferred AND @touched(s.trace_id)
GROUP BY r.run_id, r.trace_id, r.service, r.agent, r.framework, r.conversation_id, r.start_ns, r.c_ns
HAVING count(s.model) > 0 AND (count(*) FILTER (WHERE s.role IN ('model', 'tool')) = 0
  OR (count(*) FILTER (WHERE s.role = 'run' AND s.finish_reason = 'other') > 0
    AND count(*) FILTER (WHERE s.role = 'model' AND (coalesce(s.finish_reason = 'other', false) OR s.is_cancellation)) = 0));
