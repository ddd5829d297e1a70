-- @name next_ingest_id
-- @description The number of a new ingest: one more than any stored so far (in the Parquet files or in the ingest that runs).
-- @returns rows
-- @column id int
SELECT CAST(greatest(coalesce((SELECT max(ingest_id) FROM spans), 0), coalesce((SELECT max(max_ingest_id) FROM span_files), 0)) + 1 AS INTEGER) AS id;
