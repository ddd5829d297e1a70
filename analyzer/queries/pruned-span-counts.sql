-- @name pruned_span_counts
-- @description This ingest's spans on days the store's retention already removed, per file (drop-pruned.sql removes them), with the first day kept.
-- @param ingest_id INTEGER this ingest's number
-- @returns rows
-- @column file      text
-- @column spans     bigint
-- @column kept_from text
SELECT file, count(*) AS spans, any_value(m.value) AS kept_from
FROM spans, (SELECT value FROM store_meta WHERE key = 'pruned_before') AS m
WHERE ingest_id = $ingest_id AND span_day(start_ns) < CAST(m.value AS DATE)
GROUP BY file ORDER BY file;
