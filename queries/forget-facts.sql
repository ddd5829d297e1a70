-- @name forget_facts
-- @description Before run-facts.sql recomputes them: forget the run facts of the traces that just got spans (touched_traces).
-- @returns nothing; deletes from run_facts
DELETE FROM run_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
