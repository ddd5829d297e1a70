-- Generated from queries/model/load-prices.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name load_prices
-- @description The prices of the report's model calls, one row per provider, model and minute they were called in (model-call-price-keys.sql), as resolved in analyzer/resolve-prices.ts (the user's --prices table first, else @pydantic/genai-prices at that date): USD per million input and output tokens, and the long-context tier, whose prices apply to the whole call when its input tokens exceed tier_above (no tier: tier_above -1, its prices the base ones). A key without a price has no row: its calls are unpriced.
-- @param prices VARCHAR JSON [{"provider": text ('' for none), "model": text, "minute": number, "input": number, "output": number, "tier_above": number, "tier_input": number, "tier_output": number}] (possibly empty)
-- @returns nothing; creates the temporary table report_prices
CREATE OR REPLACE TEMPORARY TABLE report_prices AS
SELECT
  coalesce(json_extract_string(p, '$.provider'), '') AS provider, json_extract_string(p, '$.model') AS model,
  CAST(CAST(json_extract(p, '$.minute') AS DOUBLE) AS BIGINT) AS minute,
  CAST(json_extract(p, '$.input') AS DOUBLE) AS input_usd_per_mtok, CAST(json_extract(p, '$.output') AS DOUBLE) AS output_usd_per_mtok,
  CAST(CAST(json_extract(p, '$.tier_above') AS DOUBLE) AS BIGINT) AS tier_above_input_tokens,
  CAST(json_extract(p, '$.tier_input') AS DOUBLE) AS tier_input_usd_per_mtok, CAST(json_extract(p, '$.tier_output') AS DOUBLE) AS tier_output_usd_per_mtok
FROM (SELECT 1 AS one) AS one
CROSS JOIN unnest(CAST(json_extract($prices, '$[*]') AS JSON[])) AS u(p);
