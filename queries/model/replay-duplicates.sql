-- @name replay_duplicates
-- @description Replay duplicates and the conversations they happened in (METRICS.md §6), per group (of the run of the later commit) and in total, from replay_facts (replay-facts.sql).
-- @returns rows (one per group and a total row)
-- @column service                text?
-- @column agent                  text?
-- @column framework              text?
-- @column total                  bool
-- @column replay_duplicates      int
-- @column replayed_conversations int
SELECT
  r.service, r.agent, r.framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  count(d.span_id) AS replay_duplicates,
  count(DISTINCT d.scope) AS replayed_conversations
FROM report_runs AS r LEFT JOIN replay_facts AS d ON d.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework;
