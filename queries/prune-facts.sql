-- @name prune_facts
-- @description Retention (afterstop prune, after prune-run-facts.sql): forget the facts of the tool calls, ghost commits, compensations and spans around C of the runs it forgot (they go with their runs, as the runs' facts do).
-- @returns nothing; deletes from tool_call_facts, ghost_commit_facts, compensation_facts and cancel_span_facts
DELETE FROM tool_call_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM ghost_commit_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM compensation_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
DELETE FROM cancel_span_facts WHERE run_id NOT IN (SELECT run_id FROM run_facts);
