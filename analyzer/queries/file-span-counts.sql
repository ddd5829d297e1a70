-- @name file_span_counts
-- @description Each of a write's Parquet files (write-span-files.sql) as span_files records it: its day, spans and highest ingest number, read from the file itself.
-- @param files VARCHAR[] the files (absolute paths)
-- @returns rows
-- @column file          text
-- @column day           text
-- @column spans         bigint
-- @column max_ingest_id int
SELECT filename AS file, strftime(min(day), '%Y-%m-%d') AS day, count(*) AS spans, max(ingest_id) AS max_ingest_id
FROM read_parquet($files, filename = true, hive_partitioning = false)
GROUP BY filename ORDER BY filename;
