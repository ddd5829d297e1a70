-- @name prepare_spans
-- @description The spans of the leak model (the store's spans, with the role and run of each kept up to date at ingest) as report_spans, which the other queries read.
-- @returns nothing; creates the temporary view report_spans
CREATE OR REPLACE TEMP VIEW report_spans AS SELECT * FROM spans;
