-- @name forget_facts
-- @description Before run-facts.sql and the other *-facts.sql recompute them: forget the facts of the runs, tool calls, ghost commits, compensations and cancelled runs' spans around C of the traces that just got spans (touched_traces).
-- @returns nothing; deletes from run_facts, tool_call_facts, ghost_commit_facts, compensation_facts and cancel_span_facts
DELETE FROM run_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM tool_call_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM ghost_commit_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM compensation_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM cancel_span_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
