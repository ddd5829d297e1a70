-- @name prepare_ghost_commits
-- @description Ghost side effects (METRICS.md §2), one row each: the ghost commits kept at ingest (ghost-commit-facts.sql), compensated when a succeeded afterstop.tool.compensate marker anywhere in the store names the tool call id of a known or possible one (compensation-facts.sql).
-- @returns nothing; creates the temporary table report_ghost_commits (possible_kind: request_sent | unended for a possible one, else NULL)
CREATE OR REPLACE TEMPORARY TABLE report_ghost_commits AS
SELECT
  g.run_id, g.trace_id, g.span_id, g.tool_call_id, g.tool, g.effect, g.time_ns, g.after_stop_ns,
  g.compensable AND coalesce(g.tool_call_id IN (SELECT tool_call_id FROM compensation_facts), false) AS compensated,
  g.inferred, g.possible_kind, g.sent_ns
FROM ghost_commit_facts AS g;
