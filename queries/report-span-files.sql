-- @name report_span_files
-- @description The Parquet files a report over the window reads: the days from the day before `since` to the day after `until` (a run's spans may lie a day from its start); all when the window is open.
-- @param since_ns BIGINT the window's start in ns since the epoch (NULL: open)
-- @param until_ns BIGINT the window's end (NULL: open)
-- @returns path (relative to the store's folder)
SELECT path FROM span_files
WHERE ($since_ns IS NULL OR day >= span_day($since_ns) - 1)
  AND ($until_ns IS NULL OR day <= span_day($until_ns) + 1)
ORDER BY path;
