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
-- @column calls_started_after_stop int
-- @column ghost_tax_usd            float
SELECT
  r.service, r.agent, r.framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  CAST(coalesce(sum(t.input_after), 0) AS BIGINT) AS input,
  CAST(coalesce(sum(t.output_after), 0) AS BIGINT) AS output,
  count(t.run_id) FILTER (WHERE t.how = 'observed') AS observed_calls,
  count(t.run_id) FILTER (WHERE t.how = 'estimated') AS estimated_calls,
  count(t.run_id) FILTER (WHERE t.how = 'unknown') AS calls_without_usage,
  count(t.run_id) FILTER (WHERE NOT t.priced AND (t.input_after > 0 OR t.output_after > 0)) AS unpriced_calls,
  -- Model calls started after C: the loop went on after Stop (afterstop addition to METRICS.md §4).
  count(t.run_id) FILTER (WHERE t.started_after) AS calls_started_after_stop,
  CAST(round(coalesce(sum(t.cost_usd), 0), 9) AS DOUBLE) AS ghost_tax_usd
FROM report_runs AS r LEFT JOIN report_tokens AS t ON t.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework;
