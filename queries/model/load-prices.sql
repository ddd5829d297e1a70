-- @name load_prices
-- @description The price table for the report: each model's input and output price, USD per million tokens.
-- @param prices VARCHAR JSON [{"model": text, "input": number, "output": number}] (possibly empty)
-- @returns nothing; creates the temporary table report_prices
CREATE OR REPLACE TEMPORARY TABLE report_prices AS
SELECT @json_string(p, 'model') AS model, @json_double(p, 'input') AS input_usd_per_mtok, @json_double(p, 'output') AS output_usd_per_mtok
FROM (SELECT 1 AS one) AS one
@array_join(@json_array($prices), p);
