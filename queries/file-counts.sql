-- @name file_counts
-- @description Per file stored by this ingest: spans read, and spans that cannot be used (no trace id, span id or times, or an end before the start).
-- @param ingest_id INTEGER this ingest
-- @returns rows
-- @column file    text
-- @column spans   bigint
-- @column invalid bigint
SELECT file, count(*) AS spans,
  count(*) FILTER (WHERE trace_id IS NULL OR span_id IS NULL OR start_ns IS NULL OR end_ns IS NULL OR end_ns < start_ns) AS invalid
FROM spans WHERE ingest_id = $ingest_id
GROUP BY file ORDER BY file;
