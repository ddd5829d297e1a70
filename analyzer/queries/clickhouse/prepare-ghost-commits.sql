-- Generated from queries/model/prepare-ghost-commits.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_ghost_commits
-- @description Ghost side effects (METRICS.md §2), one row each: the ghost commits kept at ingest (ghost-commit-facts.sql), compensated when a succeeded afterstop.tool.compensate marker anywhere in the store names the tool call id of a known or possible one (compensation-facts.sql).
-- @param since_ns Nullable(Int64) runs that start at or after this time (NULL: no lower bound)
-- @param until_ns Nullable(Int64) runs that start before this time (NULL: no upper bound)
-- @returns nothing; creates report_ghost_commits (DuckDB: a temporary view, the facts kept at ingest as they are, with compensated: a view costs less than the table it would write (1M spans: about 80 ms of the report); ClickHouse: a temporary table) (possible_kind: request_sent | unended | out_of_sight for a possible one, else NULL)
CREATE OR REPLACE TEMPORARY TABLE report_ghost_commits AS
SELECT
  g.run_id AS run_id, g.trace_id AS trace_id, g.span_id AS span_id, g.tool_call_id AS tool_call_id, g.tool AS tool, g.effect AS effect, g.time_ns AS time_ns, g.after_stop_ns AS after_stop_ns,
  g.compensable AND coalesce(g.tool_call_id IN (SELECT tool_call_id FROM compensation_facts), false) AS compensated,
  g.inferred AS inferred, g.possible_kind AS possible_kind, g.sent_ns AS sent_ns,
  -- The run's group, conversation and whether it starts in the window, kept with the facts: no join to the runs.
  g.service AS service, g.agent AS agent, g.framework AS framework, g.conversation_id AS conversation_id, (({since_ns:Nullable(Int64)} IS NULL OR g.run_start_ns >= {since_ns:Nullable(Int64)}) AND ({until_ns:Nullable(Int64)} IS NULL OR g.run_start_ns < {until_ns:Nullable(Int64)})) AS in_window
FROM ghost_commit_facts AS g
