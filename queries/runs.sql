-- @name runs
-- @description How many runs, cancelled runs and unended runs (the run span was never exported), per group and in total.
-- @returns service, agent, framework, total (true on the all-groups row), runs, cancelled_runs, cancelled_runs_inferred (no marker: cancelled as a foreign trace shows it), unended_runs
SELECT
  service, agent, framework, GROUPING(service, agent, framework) = 7 AS total,
  count(*) AS runs,
  count(*) FILTER (WHERE cancelled) AS cancelled_runs,
  count(*) FILTER (WHERE cancel_inferred) AS cancelled_runs_inferred,
  count(*) FILTER (WHERE unended) AS unended_runs
FROM report_runs
WHERE in_window
GROUP BY GROUPING SETS ((service, agent, framework), ())
ORDER BY total, service, agent, framework;
