-- Generated from queries/model/prepare-ghost-commits.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_ghost_commits
-- @description Ghost side effects (METRICS.md §2), one row each. Known: an afterstop.tool.commit marker of a cancelled run later than C whose evidence shows the effect landed (manual, response; compensated when a succeeded afterstop.tool.compensate marker names its tool call id). Possible (the outcome cannot be seen): a commit known only as request_sent whose answer was lost after C (the request reached the service at sent_ns, the answer was lost at time_ns), and a tool call that is not read-only, started (afterstop.tool.start) and never ended, with no commit marker (the tool never ended: the process died or hung). Inferred: for runs without commit or tool-start markers (foreign traces), a tool span that ended after C without ERROR.
-- @returns nothing; creates the temporary table report_ghost_commits (possible_kind: request_sent | unended for a possible one, else NULL)
CREATE OR REPLACE TEMPORARY TABLE report_ghost_commits AS
WITH compensated AS (
  SELECT DISTINCT tool_call_id FROM report_spans
  WHERE name = 'afterstop.tool.compensate' AND compensation_outcome = 'succeeded' AND tool_call_id IS NOT NULL
),
runs_with_markers AS (
  SELECT DISTINCT run_id FROM report_spans WHERE name IN ('afterstop.tool.commit', 'afterstop.tool.start') AND run_id IS NOT NULL
),
-- Tool calls that ended (their execute_tool span was exported) or committed, by run and call id.
finished_calls AS (
  SELECT DISTINCT run_id, tool_call_id FROM report_spans
  WHERE (role = 'tool' OR name = 'afterstop.tool.commit') AND tool_call_id IS NOT NULL AND run_id IS NOT NULL
)
SELECT
  s.run_id AS run_id, s.trace_id AS trace_id, s.span_id AS span_id, s.tool_call_id AS tool_call_id, coalesce(s.tool_name, '(unnamed)') AS tool,
  coalesce(s.effect, 'unknown') AS effect, s.start_ns AS time_ns, s.start_ns - r.c_ns AS after_stop_ns,
  coalesce(s.tool_call_id IN (SELECT tool_call_id FROM compensated), false) AS compensated,
  false AS inferred,
  CASE WHEN s.commit_evidence = 'request_sent' THEN 'request_sent' END AS possible_kind,
  CASE WHEN s.commit_evidence = 'request_sent' AND s.commit_unanswered_ms IS NOT NULL
       THEN s.start_ns - CAST((sign(s.commit_unanswered_ms * 1e6) * floor(abs(s.commit_unanswered_ms * 1e6) + 0.5)) AS BIGINT) END AS sent_ns
FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
WHERE r.cancelled AND s.name = 'afterstop.tool.commit' AND s.start_ns > r.c_ns
UNION ALL
SELECT
  s.run_id AS run_id, s.trace_id AS trace_id, s.span_id AS span_id, s.tool_call_id AS tool_call_id, coalesce(s.tool_name, '(unnamed)'),
  coalesce(s.effect, 'unknown'), s.start_ns AS start_ns, s.start_ns - r.c_ns,
  coalesce(s.tool_call_id IN (SELECT tool_call_id FROM compensated), false),
  false, 'unended', NULL
FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
LEFT JOIN finished_calls AS f ON f.run_id = s.run_id AND f.tool_call_id = s.tool_call_id
WHERE r.cancelled AND s.name = 'afterstop.tool.start' AND s.tool_call_id IS NOT NULL
  AND coalesce(s.effect, 'unknown') <> 'read'
  AND f.run_id IS NULL
UNION ALL
SELECT
  s.run_id AS run_id, s.trace_id AS trace_id, s.span_id AS span_id, s.tool_call_id AS tool_call_id, coalesce(s.tool_name, '(unnamed)'),
  coalesce(s.effect, 'unknown'), s.end_ns AS end_ns, s.end_ns - r.c_ns,
  false, true, NULL, NULL
FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
WHERE r.cancelled AND s.role = 'tool' AND s.end_ns > r.c_ns AND s.status_code <> 2
  AND s.run_id NOT IN (SELECT run_id FROM runs_with_markers)
