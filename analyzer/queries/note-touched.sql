-- @name note_touched
-- @description The traces this ingest gave spans to, as the temporary table touched_traces: their facts are recomputed at its end.
-- @param ingest_id INTEGER this ingest
-- @returns nothing; creates the temporary table touched_traces
CREATE OR REPLACE TEMP TABLE touched_traces AS
SELECT DISTINCT trace_id FROM spans WHERE ingest_id = $ingest_id AND trace_id IS NOT NULL;
