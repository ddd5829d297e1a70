-- @name orphan_processes
-- @description ClickHouse: child processes that outlived their run (orphan markers) of the runs in the window, per group and in total, as DuckDB's orphan-processes.sql.
-- @returns service, agent, framework, total, orphan_processes
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(s.span_id) AS orphan_processes
FROM report_runs AS r LEFT JOIN (SELECT run_id, span_id FROM report_spans WHERE name = 'afterstop.process.orphan') AS s ON s.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
