-- @name orphan_processes
-- @description Orphan processes (METRICS.md §9): afterstop.process.orphan markers — child processes still alive after their run ended plus the grace period (orphan-process-facts.sql).
-- @returns rows (one per group and a total row)
-- @column service          text?
-- @column agent            text?
-- @column framework        text?
-- @column total            bool
-- @column orphan_processes int
SELECT
  s.service, s.agent, s.framework, GROUPING(s.service, s.agent, s.framework) = 7 AS total,
  count(s.span_id) AS orphan_processes
FROM (
  SELECT r.service, r.agent, r.framework, x.span_id
  FROM orphan_process_facts AS x JOIN report_runs AS r ON r.run_id = x.run_id
  WHERE r.in_window
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL FROM report_groups
) AS s
GROUP BY GROUPING SETS ((s.service, s.agent, s.framework), ())
ORDER BY total, s.service, s.agent, s.framework;
