-- @name clear_working_spans
-- @description Empty the spans table: at the start of an ingest (what a killed ingest left there is either in the Parquet files already or read again, its files not recorded as read) and once an ingest has written its spans.
-- @returns nothing
DELETE FROM spans;
