-- @name prepare_post_cancel_errors
-- @description Post-cancel errors (METRICS.md §5), one row per error: kind next_run — the next run of a cancelled run's conversation (the first to start after its end, or after C when it never ended) has a span with status ERROR that is not a cancellation; counted once, with the ERROR span that ended first as root cause, classified orphan_tool_call_rejected when it names a tool call without a result, else other. Kind cleanup — a span of the cancelled run itself with ERROR ending after C, except the cancellation. The ERROR spans are error-span-facts.sql's.
-- @returns nothing; creates the temporary table report_post_cancel_errors
CREATE OR REPLACE TEMPORARY TABLE report_post_cancel_errors AS
WITH candidates AS (
  SELECT r.run_id, n.run_id AS next_id, n.start_ns AS next_start
  FROM report_runs AS r JOIN report_runs AS n ON n.conversation_id = r.conversation_id
  WHERE r.cancelled AND r.conversation_id IS NOT NULL AND n.run_id <> r.run_id AND n.start_ns > coalesce(r.end_ns, r.c_ns)
),
next_run AS (
  SELECT run_id, argMin(next_id, next_start) AS next_id FROM candidates GROUP BY run_id
),
errors AS (
  SELECT n.run_id, n.next_id, s.trace_id, s.span_id, s.end_ns,
    trim(coalesce(s.status_message, '') || ' ' || coalesce(s.error_type, '') || ' ' ||
      coalesce(s.exception_text, '')) AS text
  FROM next_run AS n JOIN error_span_facts AS s ON s.run_id = n.next_id
),
first_error AS (
  SELECT run_id, any_value(next_id) AS next_id, argMin(trace_id, end_ns) AS trace_id, argMin(span_id, end_ns) AS span_id,
    min(end_ns) AS time_ns, argMin(text, end_ns) AS text
  FROM errors GROUP BY run_id
)
SELECT
  'next_run' AS kind, run_id, next_id AS error_run_id, trace_id, span_id, time_ns, text,
  CASE WHEN @matches(text, '(?i)no tool output found for function call|tool_use.? ids were found without .?tool_result|unprocessed tool calls|must be followed by tool messages|tool result is missing for tool call|toolinvocation must have a result|invalid_tool_results|missingtoolresults')
       THEN 'orphan_tool_call_rejected' ELSE 'other' END AS cause
FROM first_error
UNION ALL
SELECT 'cleanup', r.run_id, r.run_id, s.trace_id, s.span_id, s.end_ns,
  trim(coalesce(s.status_message, '') || ' ' || coalesce(s.error_type, '')), 'cleanup'
FROM report_runs AS r JOIN error_span_facts AS s ON s.run_id = r.run_id
WHERE r.cancelled AND s.end_ns > r.c_ns;
