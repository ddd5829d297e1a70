-- Generated from queries/model/ghost-commits.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name ghost_commits
-- @description Ghost commits per group and in total (METRICS.md §2), from report_commit_verdicts (the ghosts are report_ghost_commits' rows: those not ruled out): known to have landed after Stop, compensated, possible (in flight at Stop, outcome not seen), inferred, and the known ones to alarm on (effect irreversible or unknown); of the commits a service witnessed (issue 49), the known ghosts it confirmed and those it ruled out (its work failed, or was over before Stop, where the client's evidence alone said known or possible).
-- @returns rows (one per group and a total row)
-- @column service                         text?
-- @column agent                           text?
-- @column framework                       text?
-- @column total                           bool
-- @column ghost_commits                   int
-- @column ghost_commits_compensated       int
-- @column ghost_commits_inferred          int
-- @column ghost_commits_alarming          int
-- @column ghost_commits_possible          int
-- @column ghost_commits_possible_alarming int
-- @column ghost_commits_confirmed         int
-- @column ghost_commits_ruled_out         int
SELECT
  g.service AS service, g.agent AS agent, g.framework AS framework, GROUPING(g.service, g.agent, g.framework) = 7 AS total,
  count(g.span_id) FILTER (WHERE NOT g.inferred AND g.possible_kind IS NULL) AS ghost_commits,
  count(g.span_id) FILTER (WHERE NOT g.inferred AND g.possible_kind IS NULL AND g.compensated) AS ghost_commits_compensated,
  count(g.span_id) FILTER (WHERE g.inferred) AS ghost_commits_inferred,
  count(g.span_id) FILTER (WHERE NOT g.inferred AND g.possible_kind IS NULL AND g.effect IN ('irreversible', 'unknown')) AS ghost_commits_alarming,
  count(g.span_id) FILTER (WHERE g.possible_kind IS NOT NULL) AS ghost_commits_possible,
  count(g.span_id) FILTER (WHERE g.possible_kind IS NOT NULL AND g.effect IN ('irreversible', 'unknown')) AS ghost_commits_possible_alarming,
  count(g.span_id) FILTER (WHERE g.confirmed) AS ghost_commits_confirmed,
  count(g.ruled_out_id) AS ghost_commits_ruled_out
FROM (
  SELECT x.service AS service, x.agent AS agent, x.framework AS framework, CASE WHEN x.verdict <> 'none' THEN x.span_id END AS span_id, x.inferred AS inferred, x.possible_kind AS possible_kind, x.compensated AS compensated, x.effect AS effect,
    x.confirmed AS confirmed, CASE WHEN x.ruled_out THEN x.span_id END AS ruled_out_id
  FROM report_commit_verdicts AS x
  WHERE x.in_window
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM report_groups
) AS g
GROUP BY GROUPING SETS ((g.service, g.agent, g.framework), ())
ORDER BY total, g.service, g.agent, g.framework
