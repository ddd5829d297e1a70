-- @name tokens_after_stop_by_model
-- @description Tokens billed after Stop and their cost per model, in the window: per group (service, agent, framework) and over all groups (total = true).
-- @returns rows (one per group and a total row)
-- @column service       text?
-- @column agent         text?
-- @column framework     text?
-- @column total         bool
-- @column model         text
-- @column input         int
-- @column output        int
-- @column ghost_tax_usd float
-- @column priced        bool
SELECT
  t.service, t.agent, t.framework, GROUPING(t.service, t.agent, t.framework) = 7 AS total,
  t.model, CAST(sum(t.input_after) AS BIGINT) AS input, CAST(sum(t.output_after) AS BIGINT) AS output,
  CAST(@round(sum(t.cost_usd), 9) AS DOUBLE) AS ghost_tax_usd, min(t.priced) AS priced
FROM report_tokens AS t
GROUP BY GROUPING SETS ((t.service, t.agent, t.framework, t.model), (t.model))
ORDER BY total DESC, t.service, t.agent, t.framework, ghost_tax_usd DESC, t.model;
