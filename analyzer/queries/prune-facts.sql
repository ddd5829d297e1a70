-- @name prune_facts
-- @description Retention (afterstop prune, after prune-run-facts.sql): forget the facts of the tool calls, ghost commits, compensations, spans around C, model calls, repairs, ERROR spans, orphan processes, prevented commits, clock pairs, steering marks and commits of the runs it forgot (they go with their runs, as the runs' facts do), and what was computed for the scopes of those marks and commits (touched_scopes: steer-facts.sql and replay-facts.sql compute it again from what remains).
-- @returns nothing; deletes from tool_call_facts, ghost_commit_facts, compensation_facts, cancel_span_facts, model_call_facts, repair_facts, error_span_facts, orphan_process_facts, prevented_commit_facts, clock_pair_facts, steer_mark_facts, commit_facts, steer_facts and replay_facts; creates the temporary table touched_scopes
DELETE FROM tool_call_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM ghost_commit_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM compensation_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM cancel_span_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM model_call_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM repair_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM error_span_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM orphan_process_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM prevented_commit_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM clock_pair_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
CREATE OR REPLACE TEMP TABLE touched_scopes AS
SELECT DISTINCT scope FROM scope_members WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM steer_mark_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM commit_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM steer_facts WHERE scope IN (SELECT scope FROM touched_scopes);
DELETE FROM replay_facts WHERE scope IN (SELECT scope FROM touched_scopes);
