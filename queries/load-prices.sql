-- @name load_prices
-- @description The price table for the report: each model's input and output price, USD per million tokens.
-- @param prices VARCHAR JSON [{"model": text, "input": number, "output": number}] (possibly empty)
-- @returns nothing; creates the temporary table report_prices
CREATE OR REPLACE TEMP TABLE report_prices AS
SELECT p.model, p.input AS input_usd_per_mtok, p.output AS output_usd_per_mtok
FROM (SELECT unnest(from_json($prices, '[{"model": "VARCHAR", "input": "DOUBLE", "output": "DOUBLE"}]')) AS p);
