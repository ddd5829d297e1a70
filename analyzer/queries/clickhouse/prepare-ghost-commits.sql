-- Generated from queries/model/prepare-ghost-commits.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_ghost_commits
-- @description Ghost side effects (METRICS.md §2), one row each: the ghost commit facts kept at ingest (ghost-commit-facts.sql) that prepare-commit-verdicts.sql, with the clock bound and the far side's witness, finds known or possible (not those it rules out), compensated when a succeeded afterstop.tool.compensate marker anywhere in the store names the tool call id of a known or possible one (compensation-facts.sql).
-- @returns nothing; creates report_ghost_commits (DuckDB: a temporary view over report_commit_verdicts: a view costs less than the table it would write (1M spans: about 80 ms of the report); ClickHouse: a temporary table) (possible_kind: request_sent | across_stop | unended | out_of_sight | unrecorded for a possible one, else NULL; earliest_ns / latest_ns, the commit's interval in the agent's clock; witness, witness_verdict, the bound d_min_ns / d_max_ns; confirmed)
CREATE OR REPLACE TEMPORARY TABLE report_ghost_commits AS
SELECT
  v.run_id AS run_id, v.trace_id AS trace_id, v.span_id AS span_id, v.tool_call_id AS tool_call_id, v.tool AS tool, v.effect AS effect, v.time_ns AS time_ns, v.after_stop_ns AS after_stop_ns,
  v.compensated AS compensated, v.inferred AS inferred, v.possible_kind AS possible_kind, v.sent_ns AS sent_ns,
  v.evidence AS evidence, v.c_ns AS c_ns, v.earliest_ns AS earliest_ns, v.latest_ns AS latest_ns, v.witness AS witness, v.witness_verdict AS witness_verdict, v.witness_service AS witness_service, v.witness_span AS witness_span,
  v.witness_end_ns AS witness_end_ns, v.witness_lo_ns AS witness_lo_ns, v.witness_hi_ns AS witness_hi_ns, v.d_min_ns AS d_min_ns, v.d_max_ns AS d_max_ns, v.confirmed AS confirmed,
  v.service AS service, v.agent AS agent, v.framework AS framework, v.conversation_id AS conversation_id, v.in_window AS in_window
FROM report_commit_verdicts AS v
WHERE v.verdict <> 'none'
