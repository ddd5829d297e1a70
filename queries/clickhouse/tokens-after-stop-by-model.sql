-- @name tokens_after_stop_by_model
-- @description ClickHouse: tokens after Stop and their cost by model, as DuckDB's tokens-after-stop-by-model.sql.
-- @returns model, input, output, ghost_tax_usd, priced
SELECT model, toInt64(sum(input_after)) AS input, toInt64(sum(output_after)) AS output, toFloat64(sum(cost_usd)) AS ghost_tax_usd, min(priced) AS priced
FROM report_tokens
GROUP BY model
ORDER BY ghost_tax_usd DESC, model
