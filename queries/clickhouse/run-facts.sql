-- @name run_facts
-- @description ClickHouse: one row per run of report_spans (assign-runs.sql), as DuckDB's run-facts.sql gives it: its group, conversation, cancel time C (the first afterstop.cancel.request; for a run cancelled by outcome alone its end; inferred, for a foreign trace without markers, from the first span ending with an abort or cancel), acknowledge time A and settle marker; a run whose run span was never exported is built from its other spans and marked unended.
-- @returns nothing; creates the temporary table run_facts
CREATE OR REPLACE TEMPORARY TABLE run_facts ENGINE = Memory AS
WITH per_run AS (
  SELECT
    run_id,
    if(countIf(role = 'run') > 0, argMinIf(trace_id, start_ns, role = 'run'), argMin(trace_id, start_ns)) AS trace_id,
    min(start_ns) AS first_ns,
    maxIf(start_ns, concat(trace_id, ':', span_id) = run_id OR (role = 'run' AND concat(trace_id, ':', attr_run_id) = run_id)) AS run_start_raw,
    maxIf(end_ns, concat(trace_id, ':', span_id) = run_id OR (role = 'run' AND concat(trace_id, ':', attr_run_id) = run_id)) AS run_end_raw,
    countIf(concat(trace_id, ':', span_id) = run_id OR (role = 'run' AND concat(trace_id, ':', attr_run_id) = run_id)) > 0 AS has_run_span,
    anyIf(outcome, role = 'run') AS outcome,
    coalesce(anyIf(service, role = 'run'), any(service)) AS service,
    coalesce(anyIf(agent_name, role = 'run'), any(agent_name), any(function_id)) AS agent,
    coalesce(anyIf(framework, role = 'run'), any(framework)) AS framework,
    coalesce(anyIf(conversation_id, role = 'run'), any(conversation_id)) AS conversation_id,
    minIf(start_ns, name = 'afterstop.cancel.request') AS request_raw,
    countIf(name = 'afterstop.cancel.request') > 0 AS has_request,
    minIf(start_ns, name = 'afterstop.cancel.ack') AS ack_raw,
    countIf(name = 'afterstop.cancel.ack') > 0 AS has_ack,
    minIf(start_ns, name = 'afterstop.cancel.settle') AS settle_raw,
    countIf(name = 'afterstop.cancel.settle') > 0 AS has_settle,
    countIf(startsWith(name, 'afterstop.')) > 0 AS has_markers,
    minIf(end_ns, is_cancellation) AS abort_raw,
    countIf(is_cancellation) > 0 AS has_abort,
    minIf(end_ns, role = 'run' AND startsWith(name, 'ai.') AND status_code = 0 AND coalesce(finish_reason, 'other') IN ('other', 'unknown') AND input_tokens IS NULL AND output_tokens IS NULL) AS sdk_abort_raw,
    countIf(role = 'run' AND startsWith(name, 'ai.') AND status_code = 0 AND coalesce(finish_reason, 'other') IN ('other', 'unknown') AND input_tokens IS NULL AND output_tokens IS NULL) > 0 AS has_sdk_abort
  FROM report_spans
  WHERE run_id IS NOT NULL
  GROUP BY run_id
),
facts AS (
  SELECT *,
    if(has_run_span, run_start_raw, NULL) AS run_start_ns,
    if(has_run_span, run_end_raw, NULL) AS run_end_ns,
    if(has_request, request_raw, NULL) AS request_ns,
    if(has_abort, abort_raw, if(has_sdk_abort, sdk_abort_raw, NULL)) AS abort_evidence_ns
  FROM per_run
)
SELECT
  run_id, trace_id, service, agent, framework, conversation_id,
  coalesce(run_start_ns, first_ns) AS start_ns,
  run_end_ns AS end_ns,
  run_end_ns IS NULL AS unended,
  outcome,
  request_ns IS NOT NULL OR coalesce(outcome = 'cancelled', false) OR (NOT has_markers AND abort_evidence_ns IS NOT NULL) AS cancelled,
  coalesce(request_ns, if(outcome = 'cancelled', run_end_ns, NULL), if(NOT has_markers, abort_evidence_ns, NULL)) AS c_ns,
  request_ns IS NULL AND coalesce(outcome, '') != 'cancelled' AND NOT has_markers AND abort_evidence_ns IS NOT NULL AS cancel_inferred,
  if(has_ack, ack_raw, NULL) AS a_ns,
  if(has_settle, settle_raw, NULL) AS settle_marker_ns,
  has_request
FROM facts
