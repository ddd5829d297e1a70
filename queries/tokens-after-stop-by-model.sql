-- @name tokens_after_stop_by_model
-- @description Tokens billed after Stop and their cost per model, in the window: per group (service, agent, framework) and over all groups (total = true).
-- @returns service, agent, framework, total, model, input, output, ghost_tax_usd, priced
SELECT
  service, agent, framework, GROUPING(service, agent, framework) = 7 AS total,
  model, sum(input_after)::BIGINT AS input, sum(output_after)::BIGINT AS output, sum(cost_usd)::DOUBLE AS ghost_tax_usd, bool_and(priced) AS priced
FROM report_tokens
GROUP BY GROUPING SETS ((service, agent, framework, model), (model))
ORDER BY total DESC, service, agent, framework, ghost_tax_usd DESC, model;
