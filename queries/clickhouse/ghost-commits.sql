-- @name ghost_commits
-- @description ClickHouse: ghost commits (known; compensated; inferred; alarming: irreversible or unknown effect; possible, and possible alarming) of the runs in the window, per group and in total, as DuckDB's ghost-commits.sql.
-- @returns service, agent, framework, total, ghost_commits, ghost_commits_compensated, ghost_commits_inferred, ghost_commits_alarming, ghost_commits_possible, ghost_commits_possible_alarming
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  countIf(g.span_id IS NOT NULL AND NOT g.inferred AND g.possible_kind IS NULL) AS ghost_commits,
  countIf(g.span_id IS NOT NULL AND NOT g.inferred AND g.possible_kind IS NULL AND g.compensated) AS ghost_commits_compensated,
  countIf(g.span_id IS NOT NULL AND g.inferred) AS ghost_commits_inferred,
  countIf(g.span_id IS NOT NULL AND NOT g.inferred AND g.possible_kind IS NULL AND g.effect IN ('irreversible', 'unknown')) AS ghost_commits_alarming,
  countIf(g.span_id IS NOT NULL AND g.possible_kind IS NOT NULL) AS ghost_commits_possible,
  countIf(g.span_id IS NOT NULL AND g.possible_kind IS NOT NULL AND g.effect IN ('irreversible', 'unknown')) AS ghost_commits_possible_alarming
FROM report_runs AS r LEFT JOIN report_ghost_commits AS g ON g.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
