-- @name store_span_facts
-- @description Replace the kept span and run facts of the traces that changed with new_span_facts (span-facts.sql) and new_run_facts (run-facts.sql).
-- @returns nothing; creates span_facts and run_facts when missing, then replaces the facts of the touched traces
CREATE TABLE IF NOT EXISTS span_facts AS SELECT * FROM new_span_facts LIMIT 0;
DELETE FROM span_facts WHERE trace_id IN (SELECT trace_id FROM touched_traces);
INSERT INTO span_facts SELECT * FROM new_span_facts;
CREATE TABLE IF NOT EXISTS run_facts AS SELECT * FROM new_run_facts LIMIT 0;
DELETE FROM run_facts WHERE run_id IN (SELECT run_id FROM new_run_facts) OR trace_id IN (SELECT trace_id FROM touched_traces);
INSERT INTO run_facts SELECT * FROM new_run_facts;
DROP TABLE new_span_facts;
DROP TABLE new_run_facts;
