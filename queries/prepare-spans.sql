-- @name prepare_spans
-- @description The spans of the leak model (span_facts, kept up to date at ingest: role and run of every span) as report_spans, which the other queries read.
-- @returns nothing; creates the temporary view report_spans
CREATE OR REPLACE TEMP VIEW report_spans AS SELECT * FROM span_facts;
