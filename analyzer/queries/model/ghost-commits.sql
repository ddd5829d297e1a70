-- @name ghost_commits
-- @description Ghost commits per group and in total (METRICS.md §2), from report_ghost_commits: known to have landed after Stop, compensated, possible (in flight at Stop, outcome not seen), inferred, and the known ones to alarm on (effect irreversible or unknown).
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
SELECT
  g.service, g.agent, g.framework, GROUPING(g.service, g.agent, g.framework) = 7 AS total,
  count(g.span_id) FILTER (WHERE NOT g.inferred AND g.possible_kind IS NULL) AS ghost_commits,
  count(g.span_id) FILTER (WHERE NOT g.inferred AND g.possible_kind IS NULL AND g.compensated) AS ghost_commits_compensated,
  count(g.span_id) FILTER (WHERE g.inferred) AS ghost_commits_inferred,
  count(g.span_id) FILTER (WHERE NOT g.inferred AND g.possible_kind IS NULL AND g.effect IN ('irreversible', 'unknown')) AS ghost_commits_alarming,
  count(g.span_id) FILTER (WHERE g.possible_kind IS NOT NULL) AS ghost_commits_possible,
  count(g.span_id) FILTER (WHERE g.possible_kind IS NOT NULL AND g.effect IN ('irreversible', 'unknown')) AS ghost_commits_possible_alarming
FROM (
  SELECT x.service, x.agent, x.framework, x.span_id, x.inferred, x.possible_kind, x.compensated, x.effect
  FROM report_ghost_commits AS x
  WHERE x.in_window
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL, NULL, NULL, NULL FROM report_groups
) AS g
GROUP BY GROUPING SETS ((g.service, g.agent, g.framework), ())
ORDER BY total, g.service, g.agent, g.framework;
