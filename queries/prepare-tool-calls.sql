-- @name prepare_tool_calls
-- @description One row per tool call of a run: known from its afterstop.tool.start marker or its execute_tool span, keyed by its tool call id (the span id when it has none).
-- @returns nothing; creates the temporary table report_tool_calls
CREATE OR REPLACE TEMP TABLE report_tool_calls AS
SELECT
  run_id,
  coalesce(tool_call_id, span_id) AS call_id,
  any_value(tool_name) AS tool_name,
  min(start_ns) AS start_ns,
  bool_or(role = 'tool') AS has_span,
  max(end_ns) FILTER (WHERE role = 'tool') AS end_ns,
  any_value(attrs['afterstop.tool.result']) FILTER (WHERE role = 'tool') AS result,
  coalesce(any_value(attrs['afterstop.tool.effect']) FILTER (WHERE role = 'tool'), 'unknown') AS effect,
  any_value(trace_id) AS trace_id
FROM report_spans
WHERE run_id IS NOT NULL AND (role = 'tool' OR name = 'afterstop.tool.start')
GROUP BY run_id, coalesce(tool_call_id, span_id);
