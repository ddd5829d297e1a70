-- @name prepare_ghost_commits
-- @description ClickHouse: report_ghost_commits, as DuckDB's prepare-ghost-commits.sql: commit markers after the run's C (known; possible when known only as request_sent), tool calls started and never ended without a commit marker (possible, unended), and, for runs without afterstop's tool markers, tool spans that ended after C without an error (inferred).
-- @returns nothing; creates the temporary table report_ghost_commits
CREATE OR REPLACE TEMPORARY TABLE report_ghost_commits ENGINE = Memory AS
WITH compensated AS (
  SELECT DISTINCT tool_call_id FROM report_spans
  WHERE name = 'afterstop.tool.compensate' AND compensation_outcome = 'succeeded' AND tool_call_id IS NOT NULL
),
runs_with_markers AS (
  SELECT DISTINCT run_id FROM report_spans WHERE name IN ('afterstop.tool.commit', 'afterstop.tool.start') AND run_id IS NOT NULL
)
SELECT
  s.run_id AS run_id, s.trace_id AS trace_id, s.span_id AS span_id, s.tool_call_id AS tool_call_id, coalesce(s.tool_name, '(unnamed)') AS tool,
  coalesce(s.effect, 'unknown') AS effect, s.start_ns AS time_ns, s.start_ns - r.c_ns AS after_stop_ns,
  coalesce(s.tool_call_id IN (SELECT tool_call_id FROM compensated), false) AS compensated,
  false AS inferred,
  if(s.commit_evidence = 'request_sent', 'request_sent', NULL) AS possible_kind,
  -- rounded half away from zero, as DuckDB rounds
  if(s.commit_evidence = 'request_sent' AND s.commit_unanswered_ms IS NOT NULL,
     s.start_ns - toInt64(floor(s.commit_unanswered_ms * 1e6 + 0.5)), NULL) AS sent_ns
FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
WHERE r.cancelled AND s.name = 'afterstop.tool.commit' AND s.start_ns > r.c_ns
UNION ALL
SELECT
  s.run_id, s.trace_id, s.span_id, s.tool_call_id, coalesce(s.tool_name, '(unnamed)'),
  coalesce(s.effect, 'unknown'), s.start_ns, s.start_ns - r.c_ns,
  coalesce(s.tool_call_id IN (SELECT tool_call_id FROM compensated), false),
  false, 'unended', NULL
FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
WHERE r.cancelled AND s.name = 'afterstop.tool.start' AND s.tool_call_id IS NOT NULL
  AND coalesce(s.effect, 'unknown') != 'read'
  AND (s.run_id, s.tool_call_id) NOT IN (SELECT run_id, tool_call_id FROM report_spans WHERE role = 'tool' AND tool_call_id IS NOT NULL AND run_id IS NOT NULL)
  AND (s.run_id, s.tool_call_id) NOT IN (SELECT run_id, tool_call_id FROM report_spans WHERE name = 'afterstop.tool.commit' AND tool_call_id IS NOT NULL AND run_id IS NOT NULL)
UNION ALL
SELECT
  s.run_id, s.trace_id, s.span_id, s.tool_call_id, coalesce(s.tool_name, '(unnamed)'),
  coalesce(s.effect, 'unknown'), s.end_ns, s.end_ns - r.c_ns,
  false, true, NULL, NULL
FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
WHERE r.cancelled AND s.role = 'tool' AND s.end_ns > r.c_ns AND s.status_code != 2
  AND s.run_id NOT IN (SELECT run_id FROM runs_with_markers)
