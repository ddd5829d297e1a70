-- @name prepare_tool_calls
-- @description ClickHouse: report_tool_calls, one row per tool call of each run, as DuckDB's prepare-tool-calls.sql gives it: those executed (a tool span, or afterstop's start marker) and those the model asked for (tool call ids in a model span's output attributes) that nothing executed.
-- @returns nothing; creates the temporary table report_tool_calls
CREATE OR REPLACE TEMPORARY TABLE report_tool_calls ENGINE = Memory AS
WITH executed AS (
  SELECT
    run_id, coalesce(tool_call_id, span_id) AS call_id, tool_name, start_ns,
    role = 'tool' AS is_span, if(role = 'tool', end_ns, NULL) AS end_ns,
    if(role = 'tool', coalesce(result, if(is_cancellation, 'cancelled', NULL)), NULL) AS result,
    if(role = 'tool', effect, NULL) AS effect,
    tool_kind, trace_id
  FROM report_spans
  WHERE run_id IS NOT NULL AND (role = 'tool' OR name = 'afterstop.tool.start')
),
output_keys AS (
  SELECT run_id, trace_id, end_ns, output_attrs AS attrs, k
  FROM report_spans ARRAY JOIN mapKeys(output_attrs) AS k
  WHERE run_id IS NOT NULL AND output_tool_calls
    AND (match(k, '^gen_ai\\.completion\\.\\d+\\.tool_calls\\.\\d+\\.id$')
      OR match(k, '^llm\\.output_messages\\.\\d+\\.message\\.tool_calls\\.\\d+\\.tool_call\\.id$')
      OR k = 'ai.response.toolCalls')
),
requested AS (
  SELECT run_id, nullIf(attrs[k], '') AS call_id,
    coalesce(nullIf(attrs[replaceRegexpOne(k, '\\.id$', '.name')], ''), nullIf(attrs[replaceRegexpOne(k, '\\.id$', '.function.name')], '')) AS tool_name,
    end_ns AS start_ns, trace_id
  FROM output_keys WHERE k != 'ai.response.toolCalls'
  UNION ALL
  SELECT run_id, nullIf(JSONExtractString(c, 'toolCallId'), ''), nullIf(JSONExtractString(c, 'toolName'), ''), end_ns, trace_id
  FROM output_keys ARRAY JOIN JSONExtractArrayRaw(attrs[k]) AS c
  WHERE k = 'ai.response.toolCalls'
),
calls AS (
  SELECT run_id, call_id, tool_name, start_ns, is_span, end_ns, result, effect, tool_kind, trace_id, true AS executed FROM executed
  UNION ALL
  SELECT run_id, call_id, tool_name, start_ns, false, NULL, NULL, NULL, NULL, trace_id, false FROM requested WHERE call_id IS NOT NULL
)
SELECT
  run_id, call_id,
  any(tool_name) AS tool_name,
  if(countIf(executed) > 0, minIf(start_ns, executed), min(start_ns)) AS start_ns,
  max(is_span) AS has_span,
  max(executed) AS executed,
  max(end_ns) AS end_ns,
  any(result) AS result,
  coalesce(any(effect), 'unknown') AS effect,
  coalesce(any(tool_kind), 'tool') AS kind,
  any(trace_id) AS trace_id
FROM calls
GROUP BY run_id, call_id
