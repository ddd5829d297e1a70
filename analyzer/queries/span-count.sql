-- @name span_count
-- @description How many spans the store holds, each once: those in its Parquet files (between ingests the spans table is empty).
-- @returns rows (one)
-- @column n int
SELECT coalesce((SELECT sum(spans) FROM span_files), 0) + (SELECT count(*) FROM spans) AS n;
