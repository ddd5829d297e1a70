-- @name tokens_after_stop_by_model
-- @description Tokens billed after Stop and their cost per model, in the window, over all groups.
-- @returns model, input, output, ghost_tax_usd, priced
SELECT model, sum(input_after)::BIGINT AS input, sum(output_after)::BIGINT AS output, sum(cost_usd)::DOUBLE AS ghost_tax_usd, bool_and(priced) AS priced
FROM report_tokens
GROUP BY model
ORDER BY ghost_tax_usd DESC, model;
