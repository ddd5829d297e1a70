-- Generated from queries/model/load-prices.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name load_prices
-- @description The price table for the report: each model's input and output price, USD per million tokens.
-- @param prices VARCHAR JSON [{"model": text, "input": number, "output": number}] (possibly empty)
-- @returns nothing; creates the temporary table report_prices
CREATE OR REPLACE TEMPORARY TABLE report_prices AS
SELECT json_extract_string(p, '$.model') AS model, CAST(json_extract(p, '$.input') AS DOUBLE) AS input_usd_per_mtok, CAST(json_extract(p, '$.output') AS DOUBLE) AS output_usd_per_mtok
FROM (SELECT 1 AS one) AS one
CROSS JOIN unnest(CAST(json_extract($prices, '$[*]') AS JSON[])) AS u(p);
