-- @name timeline
-- @description ClickHouse: the window's cancelled runs, ghost commits, tokens after Stop and ghost tax per hour (a window of up to two days) or day, per service, as DuckDB's timeline.sql.
-- @returns unit, bucket_ns, service, cancelled_runs, ghost_commits, input, output, ghost_tax_usd
WITH runs AS (
  SELECT run_id, service, start_ns FROM report_runs WHERE in_window AND cancelled
),
unit AS (
  SELECT if(coalesce(max(start_ns) - min(start_ns), 0) <= 172800000000000, 'hour', 'day') AS unit FROM runs
),
tokens AS (
  SELECT run_id, sum(input_after) AS input, sum(output_after) AS output, sum(cost_usd) AS usd FROM report_tokens GROUP BY run_id
),
ghosts AS (
  SELECT run_id, countIf(NOT inferred) AS n FROM report_ghost_commits GROUP BY run_id
)
SELECT
  u.unit AS unit,
  toInt64(toUnixTimestamp(if(u.unit = 'hour', toStartOfHour(toDateTime(intDiv(r.start_ns, 1000000000), 'UTC')), toDateTime(toStartOfDay(toDateTime(intDiv(r.start_ns, 1000000000), 'UTC')), 'UTC')))) * 1000000000 AS bucket_ns,
  r.service AS service,
  count() AS cancelled_runs,
  toInt64(coalesce(sum(g.n), 0)) AS ghost_commits,
  toInt64(coalesce(sum(t.input), 0)) AS input,
  toInt64(coalesce(sum(t.output), 0)) AS output,
  toFloat64(coalesce(sum(t.usd), 0)) AS ghost_tax_usd
FROM runs AS r CROSS JOIN unit AS u
LEFT JOIN tokens AS t ON t.run_id = r.run_id
LEFT JOIN ghosts AS g ON g.run_id = r.run_id
GROUP BY u.unit, bucket_ns, r.service
ORDER BY bucket_ns, r.service ASC NULLS LAST
