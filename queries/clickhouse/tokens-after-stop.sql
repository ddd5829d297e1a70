-- @name tokens_after_stop
-- @description ClickHouse: tokens billed after Stop and their cost (the ghost tax), with how each call's tokens are known, per group and in total, as DuckDB's tokens-after-stop.sql.
-- @returns service, agent, framework, total, input, output, observed_calls, estimated_calls, calls_without_usage, unpriced_calls, calls_started_after_stop, ghost_tax_usd
SELECT
  r.service AS service, r.agent AS agent, r.framework AS framework, GROUPING(r.service, r.agent, r.framework) = 7 AS total,
  toInt64(coalesce(sum(t.input_after), 0)) AS input,
  toInt64(coalesce(sum(t.output_after), 0)) AS output,
  countIf(t.run_id IS NOT NULL AND t.how = 'observed') AS observed_calls,
  countIf(t.run_id IS NOT NULL AND t.how = 'estimated') AS estimated_calls,
  countIf(t.run_id IS NOT NULL AND t.how = 'unknown') AS calls_without_usage,
  countIf(t.run_id IS NOT NULL AND NOT t.priced AND (t.input_after > 0 OR t.output_after > 0)) AS unpriced_calls,
  countIf(t.run_id IS NOT NULL AND t.started_after) AS calls_started_after_stop,
  toFloat64(coalesce(sum(t.cost_usd), 0)) AS ghost_tax_usd
FROM report_runs AS r LEFT JOIN report_tokens AS t ON t.run_id = r.run_id
WHERE r.in_window
GROUP BY GROUPING SETS ((r.service, r.agent, r.framework), ())
ORDER BY total, r.service, r.agent, r.framework
