-- @name forget_facts
-- @description Before span-facts.sql and run-facts.sql recompute them: forget the span and run facts of the traces that just got spans (touched_traces).
-- @returns nothing; deletes from span_facts and run_facts
DELETE FROM span_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
DELETE FROM run_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
