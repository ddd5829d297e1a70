-- @name orphan_processes
-- @description Orphan processes (METRICS.md §9): afterstop.process.orphan markers — child processes still alive after their run ended plus the grace period (orphan-process-facts.sql).
-- @returns rows (one per group and a total row)
-- @column service          text?
-- @column agent            text?
-- @column framework        text?
-- @column total            bool
-- @column orphan_processes int
SELECT
  r.service, r.agent, r.framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(s.span_id) AS orphan_processes
FROM report_runs AS r LEFT JOIN orphan_process_facts AS s ON s.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework;
