-- @name touched_span_files
-- @description The Parquet files of the days this ingest's spans fall on, and the day before and after (a run that crosses midnight, a parent stored a day apart): they are read back, so that each span is kept once and every run is assigned over its whole trace, then written anew.
-- @param ingest_id INTEGER this ingest's number
-- @returns path (relative to the store's folder)
SELECT f.path FROM span_files f
WHERE f.day IN (
  SELECT DISTINCT span_day(start_ns) + CAST(d AS INTEGER) FROM spans, (VALUES (-1), (0), (1)) AS near(d) WHERE ingest_id = $ingest_id
)
ORDER BY f.path;
