-- @name prepare_spans_view
-- @description The view report_spans over the Parquet files in the variable report_files (prepare-spans.sql), with the columns of spans: the spans every other report query reads.
-- @returns nothing; creates the view report_spans
CREATE OR REPLACE TEMP VIEW report_spans AS
SELECT * EXCLUDE (day, service_folder) FROM read_parquet(getvariable('report_files'), hive_partitioning = false);
