-- @name runs
-- @description ClickHouse: runs in the window, cancelled (inferred apart) and unended, per service, agent and framework and in total (a row with total true), as DuckDB's runs.sql.
-- @returns service, agent, framework, total, runs, cancelled_runs, cancelled_runs_inferred, unended_runs
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count() AS runs,
  countIf(r.cancelled) AS cancelled_runs,
  countIf(r.cancel_inferred) AS cancelled_runs_inferred,
  countIf(r.unended) AS unended_runs
FROM report_runs AS r
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
