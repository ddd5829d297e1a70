-- @name touched_span_files
-- @description The Parquet files of the days this ingest touches, read back so that each span is kept once and every run is assigned and summed up over its whole trace, then written anew: the days its spans fall on and the day either side (a run that crosses midnight, a parent stored a day apart), and every day a run of a trace it touches (touched_traces) already spans.
-- @param ingest_id INTEGER this ingest's number
-- @returns rows: relative to the store's folder
-- @column path text
WITH days AS (
  SELECT span_day(start_ns) + CAST(d AS INTEGER) AS day FROM spans, (VALUES (-1), (0), (1)) AS near(d) WHERE ingest_id = $ingest_id
  UNION
  SELECT CAST(unnest(generate_series(CAST(span_day(f.start_ns) AS TIMESTAMP), CAST(span_day(coalesce(f.end_ns, f.start_ns)) AS TIMESTAMP), INTERVAL 1 DAY)) AS DATE)
  FROM run_facts f WHERE f.trace_id IN (SELECT trace_id FROM touched_traces)
)
SELECT f.path FROM span_files f WHERE f.day IN (SELECT day FROM days) ORDER BY f.path;
