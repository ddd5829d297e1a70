-- @name runs
-- @description How many runs, cancelled runs and unended runs (the run span was never exported), and the runs cancelled by a deadline (their first cancel request's source is `timeout`: the guard's deadline, or the app's own), per group and in total.
-- @returns rows (one per group and a total row)
-- @column service                 text?
-- @column agent                   text?
-- @column framework               text?
-- @column total                   bool   true on the all-groups row
-- @column runs                    int
-- @column cancelled_runs          int
-- @column cancelled_runs_inferred int    no marker: cancelled as a foreign trace shows it
-- @column unended_runs            int
-- @column deadline_cancels        int    cancelled with source timeout
-- @column uninstrumented_runs     int    runs beside frameworks afterstop does not instrument (their figures are lower bounds)
-- @column uninstrumented          text?  those frameworks' packages, sorted, comma-separated
SELECT
  r.service, r.agent, r.framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(*) AS runs,
  count(*) FILTER (WHERE r.cancelled) AS cancelled_runs,
  count(*) FILTER (WHERE r.cancel_inferred) AS cancelled_runs_inferred,
  count(*) FILTER (WHERE r.unended) AS unended_runs,
  count(*) FILTER (WHERE r.cancelled AND r.cancel_source = 'timeout') AS deadline_cancels,
  count(*) FILTER (WHERE r.uninstrumented IS NOT NULL) AS uninstrumented_runs,
  @sorted_distinct_split(r.uninstrumented, ',') AS uninstrumented
FROM report_runs AS r
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework;
