-- Generated from queries/model/commits-prevented.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name commits_prevented
-- @description Commits the guard's fence prevented (prevented-commit-facts.sql): side effects a tool tried to make after its run was stopped, refused before anything reached the service; in total, and of irreversible or unknown effect (the ones a ghost of would alarm), per group and in total.
-- @returns rows (one per group and a total row)
-- @column service                    text?
-- @column agent                      text?
-- @column framework                  text?
-- @column total                      bool
-- @column commits_prevented          int
-- @column commits_prevented_alarming int
SELECT
  s.service AS service, s.agent AS agent, s.framework AS framework, GROUPING(s.service, s.agent, s.framework) = 7 AS total,
  count(s.span_id) AS commits_prevented,
  count(s.span_id) FILTER (WHERE s.effect IN ('irreversible', 'unknown')) AS commits_prevented_alarming
FROM (
  SELECT r.service AS service, r.agent AS agent, r.framework AS framework, x.span_id AS span_id, x.effect AS effect
  FROM prevented_commit_facts AS x JOIN report_runs AS r ON r.run_id = x.run_id
  WHERE r.in_window
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL FROM report_groups
) AS s
GROUP BY GROUPING SETS ((s.service, s.agent, s.framework), ())
ORDER BY total, s.service, s.agent, s.framework
