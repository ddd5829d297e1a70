-- @name file_counts
-- @description Per file asked for, stored by this ingest (only those: an ingest asks after each batch of files it reads, and the spans of every batch before are in the table too): spans read, and spans that cannot be used (no trace id, span id or times, or an end before the start).
-- @param ingest_id INTEGER this ingest
-- @param files VARCHAR[] the files, as the spans name them (the file read, or the source a clean copy was read for)
-- @returns rows
-- @column file    text
-- @column spans   bigint
-- @column invalid bigint
SELECT file, count(*) AS spans,
  count(*) FILTER (WHERE trace_id IS NULL OR span_id IS NULL OR start_ns IS NULL OR end_ns IS NULL OR end_ns < start_ns) AS invalid
FROM spans WHERE ingest_id = $ingest_id AND file IN (SELECT unnest(CAST($files AS VARCHAR[])))
GROUP BY file ORDER BY file;
