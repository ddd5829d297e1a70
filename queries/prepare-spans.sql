-- @name prepare_spans
-- @description The spans a report reads (report_spans): those of the Parquet files of its window (report-span-files.sql), read once into a temporary table that DuckDB may spill to disk. With no file, prepare-spans-empty.sql.
-- @param files VARCHAR[] the files (absolute paths), at least one
-- @returns nothing; creates report_spans
CREATE OR REPLACE TEMP TABLE report_spans AS
SELECT * EXCLUDE (day) FROM read_parquet($files, hive_partitioning = false);
