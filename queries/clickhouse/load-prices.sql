-- Generated from queries/model/load-prices.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name load_prices
-- @description The price table for the report: each model's input and output price, USD per million tokens.
-- @param prices String JSON [{"model": text, "input": number, "output": number}] (possibly empty)
-- @returns nothing; creates the temporary table report_prices
CREATE OR REPLACE TEMPORARY TABLE report_prices AS
SELECT nullIf(JSONExtractString(p, 'model'), '') AS model, JSONExtractFloat(p, 'input') AS input_usd_per_mtok, JSONExtractFloat(p, 'output') AS output_usd_per_mtok
FROM (SELECT 1 AS one) AS one
ARRAY JOIN JSONExtractArrayRaw({prices:String}) AS p
