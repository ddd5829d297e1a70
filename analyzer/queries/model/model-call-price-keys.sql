-- @name model_call_price_keys
-- @description What a price is looked up by, once for each: the distinct provider, model and minute (of the call's start, UTC, in minutes since the epoch) of the model calls in the window (model-call-facts.sql; a cut step has no tokens to price). analyzer/resolve-prices.ts resolves each into report_prices (load-prices.sql), which prepare-tokens.sql joins: a price may change with the date (and, for a few providers, with the time of day).
-- @param since_ns BIGINT? runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT? runs that start before this time (NULL: no upper bound)
-- @returns rows
-- @column provider text
-- @column model    text
-- @column minute   bigint
SELECT DISTINCT coalesce(m.provider, '') AS provider, m.model, @int_div(m.start_ns, CAST(60000000000 AS BIGINT)) AS minute
FROM model_call_facts AS m
WHERE @in_window(m.run_start_ns) AND NOT m.cut_step AND m.model IS NOT NULL
ORDER BY provider, model, minute;
