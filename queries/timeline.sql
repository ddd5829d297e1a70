-- @name timeline
-- @description What Stop left behind over time (for charts), per time bucket and service: cancelled runs in the window, their ghost commits (observed, as in ghost-commits.sql), tokens billed after Stop and the ghost tax. A run counts in the bucket of its start. The bucket is an hour when the cancelled runs span two days (172,800 s) or less, else a day.
-- @returns unit, bucket_ns, service, cancelled_runs, ghost_commits, input, output, ghost_tax_usd
WITH runs AS (
  SELECT run_id, service, start_ns FROM report_runs WHERE in_window AND cancelled
),
unit AS (
  SELECT CASE WHEN coalesce(max(start_ns) - min(start_ns), 0) <= 172800000000000::BIGINT THEN 'hour' ELSE 'day' END AS unit FROM runs
),
tokens AS (
  SELECT run_id, sum(input_after) AS input, sum(output_after) AS output, sum(cost_usd) AS usd FROM report_tokens GROUP BY run_id
),
ghosts AS (
  SELECT run_id, count(*) FILTER (WHERE NOT inferred) AS n FROM report_ghost_commits GROUP BY run_id
)
SELECT
  u.unit,
  epoch_ns(date_trunc(u.unit, make_timestamp(r.start_ns // 1000))) AS bucket_ns,
  r.service,
  count(*) AS cancelled_runs,
  coalesce(sum(g.n), 0)::BIGINT AS ghost_commits,
  coalesce(sum(t.input), 0)::BIGINT AS input,
  coalesce(sum(t.output), 0)::BIGINT AS output,
  coalesce(sum(t.usd), 0)::DOUBLE AS ghost_tax_usd
FROM runs r CROSS JOIN unit u
LEFT JOIN tokens t ON t.run_id = r.run_id
LEFT JOIN ghosts g ON g.run_id = r.run_id
GROUP BY u.unit, bucket_ns, r.service
ORDER BY bucket_ns, r.service NULLS LAST;
