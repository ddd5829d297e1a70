-- @name prepare_post_cancel_errors
-- @description Post-cancel errors (METRICS.md §5), one row per error: kind next_run — the next run of a cancelled run's conversation (the first to start after its end, or after C when it never ended) has a span with status ERROR that is not a cancellation; counted once, with the ERROR span that ended first as root cause, classified orphan_tool_call_rejected when it names a tool call without a result, else other. Kind cleanup — a span of the cancelled run itself with ERROR ending after C, except the cancellation.
-- @returns nothing; creates the temporary table report_post_cancel_errors
CREATE OR REPLACE TEMP TABLE report_post_cancel_errors AS
WITH next_run AS (
  SELECT r.run_id, (
    SELECT n.run_id FROM report_runs n
    WHERE n.conversation_id = r.conversation_id AND n.run_id <> r.run_id AND n.start_ns > coalesce(r.end_ns, r.c_ns)
    ORDER BY n.start_ns LIMIT 1
  ) AS next_id
  FROM report_runs r
  WHERE r.cancelled AND r.conversation_id IS NOT NULL
),
errors AS (
  SELECT n.run_id, n.next_id, s.trace_id, s.span_id, s.end_ns,
    trim(coalesce(s.status_message, '') || ' ' || coalesce(s.error_type, '') || ' ' ||
      coalesce(s.exception_text, '')) AS text
  FROM next_run n JOIN report_spans s ON s.run_id = n.next_id
  WHERE s.status_code = 2 AND NOT s.is_cancellation
),
first_error AS (
  SELECT run_id, any_value(next_id) AS next_id, arg_min(trace_id, end_ns) AS trace_id, arg_min(span_id, end_ns) AS span_id,
    min(end_ns) AS time_ns, arg_min(text, end_ns) AS text
  FROM errors GROUP BY run_id
)
SELECT
  'next_run' AS kind, run_id, next_id AS error_run_id, trace_id, span_id, time_ns, text,
  CASE WHEN regexp_matches(text, '(?i)no tool output found for function call|tool_use.? ids were found without .?tool_result|unprocessed tool calls|must be followed by tool messages|tool result is missing for tool call|toolinvocation must have a result|invalid_tool_results|missingtoolresults')
       THEN 'orphan_tool_call_rejected' ELSE 'other' END AS cause
FROM first_error
UNION ALL
SELECT 'cleanup', r.run_id, r.run_id, s.trace_id, s.span_id, s.end_ns,
  trim(coalesce(s.status_message, '') || ' ' || coalesce(s.error_type, '')), 'cleanup'
FROM report_runs r JOIN report_spans s ON s.run_id = r.run_id
WHERE r.cancelled AND s.status_code = 2 AND s.end_ns > r.c_ns AND NOT s.is_cancellation;
