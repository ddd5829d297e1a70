-- @name record_span_files
-- @description Record a write's Parquet files as live (after replace-span-files.sql, in the same transaction).
-- @param paths          VARCHAR[]  the files, relative to the store's folder
-- @param days           VARCHAR[]  the day of each (YYYY-MM-DD)
-- @param spans          BIGINT[]   its spans
-- @param max_ingest_ids INTEGER[]  the highest ingest number in it
-- @returns nothing
INSERT INTO span_files (path, day, spans, max_ingest_id)
SELECT unnest($paths), CAST(unnest($days) AS DATE), unnest($spans), unnest($max_ingest_ids);
