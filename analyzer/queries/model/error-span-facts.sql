-- @name error_span_facts
-- @description The spans with status ERROR that are not the cancellation itself (nor afterstop's request span whose answer was lost, error.type request_lost: the request a Stop cut, issue 49), of the runs of the traces just touched (DuckDB: touched_traces, inserted into the store's error_span_facts at ingest, so that a report over an unchanged store does not read the spans again; ClickHouse: every trace read, the session's error_span_facts), with what they say (status message, error type, exception). prepare-post-cancel-errors.sql picks the post-cancel errors among them: those of the next run of a cancelled run's conversation, and those of the cancelled run after C.
-- @returns nothing; fills error_span_facts
@store_insert(error_span_facts)
SELECT run_id, trace_id, span_id, end_ns, status_message, error_type, exception_text
FROM @assigned_spans
WHERE status_code = 2 AND NOT is_cancellation AND run_id IS NOT NULL AND @touched(trace_id)
  -- afterstop's request span whose answer was lost (issue 49: error.type request_lost): the request a Stop cut, whose
  -- effect §2 judges (its commit marker, request_sent), not an error of its own; a tool's failure is on its tool span.
  AND coalesce(error_type, '') <> 'request_lost';
