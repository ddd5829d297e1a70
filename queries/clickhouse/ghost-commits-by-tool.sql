-- @name ghost_commits_by_tool
-- @description ClickHouse: ghost commits of the runs in the window by tool and effect class, known, inferred and possible apart, per group and in total, as DuckDB's ghost-commits-by-tool.sql.
-- @returns service, agent, framework, total, tool, effect, ghost_commits, ghost_commits_inferred, ghost_commits_possible
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  g.tool AS tool, g.effect AS effect, countIf(NOT g.inferred AND g.possible_kind IS NULL) AS ghost_commits, countIf(g.inferred) AS ghost_commits_inferred,
  countIf(g.possible_kind IS NOT NULL) AS ghost_commits_possible
FROM report_ghost_commits AS g JOIN report_runs AS r ON r.run_id = g.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework, g.tool, g.effect), (g.tool, g.effect))
ORDER BY total DESC, service, agent, framework, ghost_commits DESC, ghost_commits_inferred DESC, ghost_commits_possible DESC, tool, effect
