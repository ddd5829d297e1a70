-- @name ghost_commits_by_tool
-- @description ClickHouse: ghost commits of the runs in the window by tool and effect class, observed and inferred apart, as DuckDB's ghost-commits-by-tool.sql.
-- @returns tool, effect, ghost_commits, ghost_commits_inferred
SELECT g.tool AS tool, g.effect AS effect, countIf(NOT g.inferred) AS ghost_commits, countIf(g.inferred) AS ghost_commits_inferred
FROM report_ghost_commits AS g JOIN report_runs AS r ON r.run_id = g.run_id
WHERE r.in_window
GROUP BY g.tool, g.effect
ORDER BY ghost_commits DESC, ghost_commits_inferred DESC, tool, effect
