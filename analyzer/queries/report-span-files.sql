-- @name report_span_files
-- @description The Parquet files a report over the window reads: the days from the day before `since` to the day after `until`, and every day (with the day either side) of a run that shares a conversation or a trace with a run of the window (the next run after a Stop, the first commit of a replayed effect, a steering message queued earlier may lie days away); all when the window is open.
-- @param since_ns BIGINT the window's start in ns since the epoch (NULL: open)
-- @param until_ns BIGINT the window's end (NULL: open)
-- @returns rows: relative to the store's folder
-- @column path text
WITH window_runs AS (
  SELECT run_id, trace_id, conversation_id FROM run_facts
  -- An open window reads every file: no day of any run is worked out (at 1,000,000 spans that was 140 ms).
  WHERE ($since_ns IS NOT NULL OR $until_ns IS NOT NULL)
    AND ($since_ns IS NULL OR start_ns >= $since_ns) AND ($until_ns IS NULL OR start_ns < $until_ns)
),
related AS (
  SELECT start_ns, end_ns FROM run_facts
  WHERE conversation_id IN (SELECT conversation_id FROM window_runs WHERE conversation_id IS NOT NULL)
     OR trace_id IN (SELECT trace_id FROM window_runs)
),
-- Each run's first and last day once, then the days between (runs by the thousand share a few days).
spans_of_days AS (
  SELECT DISTINCT span_day(start_ns) AS first_day, span_day(coalesce(end_ns, start_ns)) AS last_day FROM related
),
days AS (
  SELECT DISTINCT CAST(unnest(generate_series(CAST(first_day - 1 AS TIMESTAMP), CAST(last_day + 1 AS TIMESTAMP), INTERVAL 1 DAY)) AS DATE) AS day
  FROM spans_of_days
)
SELECT path FROM span_files
WHERE (($since_ns IS NULL OR day >= span_day($since_ns) - 1) AND ($until_ns IS NULL OR day <= span_day($until_ns) + 1))
   OR day IN (SELECT day FROM days)
ORDER BY path;
