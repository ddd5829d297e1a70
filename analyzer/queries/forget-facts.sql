-- @name forget_facts
-- @description Before run-facts.sql and the other *-facts.sql recompute them: forget the facts of the runs, tool calls, ghost commits, compensations, cancelled runs' spans around C, steering marks, commits, model calls, repairs, ERROR spans, orphan processes, prevented commits and clock pairs of the traces that just got spans (touched_traces). The scopes of the marks and commits forgotten start the temporary table touched_scopes (note-touched-scopes.sql adds the new ones): a scope a trace leaves is recomputed too.
-- @returns nothing; deletes from run_facts, tool_call_facts, ghost_commit_facts, compensation_facts, cancel_span_facts, steer_mark_facts, commit_facts, model_call_facts, repair_facts, error_span_facts, orphan_process_facts, prevented_commit_facts and clock_pair_facts; creates the temporary table touched_scopes
CREATE OR REPLACE TEMP TABLE touched_scopes AS
SELECT DISTINCT scope FROM scope_members WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM run_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM tool_call_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM ghost_commit_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM compensation_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM cancel_span_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM steer_mark_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM commit_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM model_call_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM repair_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM error_span_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM orphan_process_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM prevented_commit_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM clock_pair_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
