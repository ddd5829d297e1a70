-- Generated from queries/model/ghost-commits-by-tool.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name ghost_commits_by_tool
-- @description Ghost commits (METRICS.md §2) per tool and effect class, over the runs in the window, from report_ghost_commits, beside the commits the guard's fence prevented (prevented_commit_facts): per group (service, agent, framework) and in total (total = true).
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
-- @column commits_prevented      int
SELECT
  g.service, g.agent, g.framework, GROUPING(g.service, g.agent, g.framework) = 7 AS total,
  g.tool, g.effect, count(*) FILTER (WHERE g.kind = 'known') AS ghost_commits, count(*) FILTER (WHERE g.kind = 'inferred') AS ghost_commits_inferred,
  count(*) FILTER (WHERE g.kind = 'possible') AS ghost_commits_possible,
  count(*) FILTER (WHERE g.kind = 'prevented') AS commits_prevented
FROM (
  SELECT service, agent, framework, tool, effect,
    CASE WHEN inferred THEN 'inferred' WHEN possible_kind IS NOT NULL THEN 'possible' ELSE 'known' END AS kind
  FROM report_ghost_commits
  WHERE in_window
  UNION ALL
  SELECT r.service, r.agent, r.framework, x.tool, x.effect, 'prevented'
  FROM prevented_commit_facts AS x JOIN report_runs AS r ON r.run_id = x.run_id
  WHERE r.in_window
) AS g
GROUP BY GROUPING SETS ((g.service, g.agent, g.framework, g.tool, g.effect), (g.tool, g.effect))
ORDER BY total DESC, g.service, g.agent, g.framework, ghost_commits DESC, ghost_commits_inferred DESC, ghost_commits_possible DESC, commits_prevented DESC, g.tool, g.effect;
