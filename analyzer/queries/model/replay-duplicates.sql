-- @name replay_duplicates
-- @description Replay duplicates and the conversations they happened in (METRICS.md §6), per group (of the run of the later commit) and in total, from replay_facts (replay-facts.sql); a replay whose request carried the earlier commit's idempotency key (the guard) is deduplicated, counted apart and not a duplicate.
-- @returns rows (one per group and a total row)
-- @column service                text?
-- @column agent                  text?
-- @column framework              text?
-- @column total                  bool
-- @column replay_duplicates      int
-- @column replayed_conversations int
-- @column replays_deduplicated   int
SELECT
  d.service, d.agent, d.framework, GROUPING(d.service, d.agent, d.framework) = 7 AS total,
  count(d.span_id) FILTER (WHERE NOT d.deduplicated) AS replay_duplicates,
  count(DISTINCT d.scope) FILTER (WHERE NOT d.deduplicated) AS replayed_conversations,
  count(d.span_id) FILTER (WHERE d.deduplicated) AS replays_deduplicated
FROM (
  SELECT r.service, r.agent, r.framework, x.span_id, x.scope, coalesce(x.deduplicated, false) AS deduplicated
  FROM replay_facts AS x JOIN report_runs AS r ON r.run_id = x.run_id
  WHERE r.in_window
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL, false FROM report_groups
) AS d
GROUP BY GROUPING SETS ((d.service, d.agent, d.framework), ())
ORDER BY total, d.service, d.agent, d.framework;
