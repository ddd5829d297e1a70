-- Generated from queries/model/timeline.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name timeline
-- @description What Stop left behind over time (for charts), per time bucket and service: cancelled runs in the window, their ghost commits (observed, as in ghost-commits.sql), tokens billed after Stop and the ghost tax. A run counts in the bucket of its start (UTC). The bucket is an hour when the cancelled runs span two days (172,800 s) or less, else a day.
-- @returns rows
-- @column unit           text
-- @column bucket_ns      bigint
-- @column service        text?
-- @column cancelled_runs int
-- @column ghost_commits  int
-- @column input          int
-- @column output         int
-- @column ghost_tax_usd  float
-- The cancelled runs in the window (report_cancel_latency: one row each, from the facts kept for them).
WITH runs AS (
  SELECT run_id, service, start_ns FROM report_cancel_latency
),
unit AS (
  SELECT CASE WHEN coalesce(max(start_ns) - min(start_ns), 0) <= CAST(172800000000000 AS BIGINT) THEN 'hour' ELSE 'day' END AS unit,
    CASE WHEN coalesce(max(start_ns) - min(start_ns), 0) <= CAST(172800000000000 AS BIGINT) THEN CAST(3600000000000 AS BIGINT) ELSE CAST(86400000000000 AS BIGINT) END AS unit_ns
  FROM runs
),
tokens AS (
  SELECT run_id, sum(input_after) AS input, sum(output_after) AS output, sum(cost_usd) AS usd FROM report_tokens GROUP BY run_id
),
ghosts AS (
  SELECT run_id, count(*) FILTER (WHERE NOT inferred) AS n FROM report_ghost_commits GROUP BY run_id
)
SELECT
  u.unit,
  -- The start of the bucket: a run's start in ns since the epoch, down to the whole hour or day (UTC has no leap seconds here).
  r.start_ns - (r.start_ns % u.unit_ns) AS bucket_ns,
  r.service,
  count(*) AS cancelled_runs,
  CAST(coalesce(sum(g.n), 0) AS BIGINT) AS ghost_commits,
  CAST(coalesce(sum(t.input), 0) AS BIGINT) AS input,
  CAST(coalesce(sum(t.output), 0) AS BIGINT) AS output,
  CAST(round(coalesce(sum(t.usd), 0), 9) AS DOUBLE) AS ghost_tax_usd
FROM runs AS r CROSS JOIN unit AS u
LEFT JOIN tokens AS t ON t.run_id = r.run_id
LEFT JOIN ghosts AS g ON g.run_id = r.run_id
GROUP BY u.unit, bucket_ns, r.service
ORDER BY bucket_ns, r.service NULLS LAST;
