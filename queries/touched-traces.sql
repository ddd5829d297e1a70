-- @name touched_traces
-- @description Start an ingest: the traces it gives spans to (their span and run facts are recomputed at its end).
-- @returns nothing; creates the temporary table touched_traces
CREATE OR REPLACE TEMP TABLE touched_traces (trace_id VARCHAR PRIMARY KEY);
