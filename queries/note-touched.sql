-- @name note_touched
-- @description Note the traces of the valid staged spans as touched.
-- @returns nothing; inserts into touched_traces
INSERT OR IGNORE INTO touched_traces SELECT DISTINCT trace_id FROM staged WHERE valid;
