-- @name touch_all_traces
-- @description Every trace of the spans table, as the temporary table touched_traces (note-touched.sql's): a migration (store-migration.ts) reads every span back and recomputes the facts of every trace.
-- @returns nothing; creates the temporary table touched_traces
CREATE OR REPLACE TEMP TABLE touched_traces AS
SELECT DISTINCT trace_id FROM spans WHERE trace_id IS NOT NULL;
