-- @name replay_duplicates
-- @description ClickHouse: replayed side effects and the conversations they happened in, per group and in total, as DuckDB's replay-duplicates.sql.
-- @returns service, agent, framework, total, replay_duplicates, replayed_conversations
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(d.span_id) AS replay_duplicates,
  uniqExact(d.scope) AS replayed_conversations
FROM report_runs AS r LEFT JOIN report_replays AS d ON d.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
