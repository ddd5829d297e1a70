-- Generated from queries/model/ghost-commits-by-tool.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name ghost_commits_by_tool
-- @description Ghost commits (METRICS.md §2) per tool and effect class, over the runs in the window, from report_ghost_commits: per group (service, agent, framework) and in total (total = true).
-- @returns rows (one per group and a total row)
-- @column service                text?
-- @column agent                  text?
-- @column framework              text?
-- @column total                  bool
-- @column tool                   text
-- @column effect                 text
-- @column ghost_commits          int
-- @column ghost_commits_inferred int
-- @column ghost_commits_possible int
SELECT
  g.service, g.agent, g.framework, GROUPING(g.service, g.agent, g.framework) = 7 AS total,
  g.tool, g.effect, count(*) FILTER (WHERE NOT g.inferred AND g.possible_kind IS NULL) AS ghost_commits, count(*) FILTER (WHERE g.inferred) AS ghost_commits_inferred,
  count(*) FILTER (WHERE g.possible_kind IS NOT NULL) AS ghost_commits_possible
FROM report_ghost_commits AS g
WHERE g.in_window
GROUP BY GROUPING SETS ((g.service, g.agent, g.framework, g.tool, g.effect), (g.tool, g.effect))
ORDER BY total DESC, g.service, g.agent, g.framework, ghost_commits DESC, ghost_commits_inferred DESC, ghost_commits_possible DESC, g.tool, g.effect;
