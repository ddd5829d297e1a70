-- @name tokens_after_stop_by_model
-- @description ClickHouse: tokens after Stop and their cost by model, per group and over all groups, as DuckDB's tokens-after-stop-by-model.sql.
-- @returns service, agent, framework, total, model, input, output, ghost_tax_usd, priced
SELECT
  service, agent, framework, GROUPING(service, agent, framework) = 7 AS total,
  model, toInt64(sum(input_after)) AS input, toInt64(sum(output_after)) AS output, toFloat64(sum(cost_usd)) AS ghost_tax_usd, min(priced) AS priced
FROM report_tokens
GROUP BY GROUPING SETS ((service, agent, framework, model), (model))
ORDER BY total DESC, service, agent, framework, ghost_tax_usd DESC, model
