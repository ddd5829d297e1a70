-- Generated from queries/model/tokens-after-stop.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name tokens_after_stop
-- @description Tokens billed after Stop and the ghost tax (METRICS.md §4, §10), per group and in total, from report_tokens. Sums of dollars are rounded to 9 decimals (a billionth of a dollar), here and in tokens-after-stop-by-model.sql and timeline.sql: a sum of floating-point costs depends in its last bits on the order its rows come in, which differs between engines and threads.
-- @returns rows (one per group and a total row)
-- @column service                  text?
-- @column agent                    text?
-- @column framework                text?
-- @column total                    bool
-- @column input                    int
-- @column output                   int
-- @column observed_calls           int
-- @column estimated_calls          int
-- @column calls_without_usage      int
-- @column unpriced_calls           int
-- @column unpriced_input           int
-- @column unpriced_output          int
-- @column calls_started_after_stop int
-- @column ghost_tax_usd            float
SELECT
  t.service, t.agent, t.framework, GROUPING(t.service, t.agent, t.framework) = 7 AS total,
  CAST(coalesce(sum(t.input_after), 0) AS BIGINT) AS input,
  CAST(coalesce(sum(t.output_after), 0) AS BIGINT) AS output,
  count(t.run_id) FILTER (WHERE t.how = 'observed') AS observed_calls,
  count(t.run_id) FILTER (WHERE t.how = 'estimated') AS estimated_calls,
  count(t.run_id) FILTER (WHERE t.how = 'unknown') AS calls_without_usage,
  count(t.run_id) FILTER (WHERE NOT t.priced AND (t.input_after > 0 OR t.output_after > 0)) AS unpriced_calls,
  -- The tokens of those calls: billed after Stop, missing from the ghost tax (afterstop addition to METRICS.md §4).
  CAST(coalesce(sum(t.input_after) FILTER (WHERE NOT t.priced), 0) AS BIGINT) AS unpriced_input,
  CAST(coalesce(sum(t.output_after) FILTER (WHERE NOT t.priced), 0) AS BIGINT) AS unpriced_output,
  -- Model calls started after C: the loop went on after Stop (afterstop addition to METRICS.md §4).
  count(t.run_id) FILTER (WHERE t.started_after) AS calls_started_after_stop,
  CAST(round(coalesce(sum(t.cost_usd), 0), 9) AS DOUBLE) AS ghost_tax_usd
FROM (
  SELECT service, agent, framework, run_id, input_after, output_after, how, priced, started_after, cost_usd FROM report_tokens
  UNION ALL
  -- Every group of the window's runs, with nothing of its own (prepare-groups.sql): its row, with zeros.
  SELECT service, agent, framework, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM report_groups
) AS t
GROUP BY GROUPING SETS ((t.service, t.agent, t.framework), ())
ORDER BY total, t.service, t.agent, t.framework;
