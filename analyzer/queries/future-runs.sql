-- Generated from queries/model/future-runs.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name future_runs
-- @description Runs stamped in the future (clock skew or bad data): they start at or after from_ns (the report's time and a day's tolerance, or the window's start if later) and before to_ns (the window's end as given). The report leaves them out of its window, counts them and names the first few; `afterstop prune` removes them. The earliest first, each row with how many there are.
-- @param from_ns BIGINT runs that start at or after this time
-- @param to_ns BIGINT and before this one (NULL: no upper bound)
-- @returns rows (at most 3)
-- @column trace_id text
-- @column run_id   text
-- @column start_ns bigint
-- @column runs     int    how many runs start at or after from_ns and before to_ns
SELECT r.trace_id, r.run_id, r.start_ns, count(*) OVER () AS runs
FROM report_runs AS r
WHERE r.start_ns >= $from_ns AND ($to_ns IS NULL OR r.start_ns < $to_ns)
ORDER BY r.start_ns, r.trace_id, r.run_id
LIMIT 3;
