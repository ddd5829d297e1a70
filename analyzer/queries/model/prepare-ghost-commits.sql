-- @name prepare_ghost_commits
-- @description Ghost side effects (METRICS.md §2), one row each: the ghost commits kept at ingest (ghost-commit-facts.sql), compensated when a succeeded afterstop.tool.compensate marker anywhere in the store names the tool call id of a known or possible one (compensation-facts.sql).
-- @param since_ns BIGINT? runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT? runs that start before this time (NULL: no upper bound)
-- @returns nothing; creates report_ghost_commits (DuckDB: a temporary view, the facts kept at ingest as they are, with compensated: a view costs less than the table it would write (1M spans: about 80 ms of the report); ClickHouse: a temporary table) (possible_kind: request_sent | unended | out_of_sight for a possible one, else NULL)
@session_view(report_ghost_commits)
SELECT
  g.run_id, g.trace_id, g.span_id, g.tool_call_id, g.tool, g.effect, g.time_ns, g.after_stop_ns,
  g.compensable AND coalesce(g.tool_call_id IN (SELECT tool_call_id FROM compensation_facts), false) AS compensated,
  g.inferred, g.possible_kind, g.sent_ns,
  -- The run's group, conversation and whether it starts in the window, kept with the facts: no join to the runs.
  g.service, g.agent, g.framework, g.conversation_id, @in_window(g.run_start_ns) AS in_window
FROM ghost_commit_facts AS g;
