-- @name load_prices
-- @description ClickHouse: the price table as the temporary table report_prices (model, USD per million input and output tokens), from one JSON parameter.
-- @param prices String JSON: [{"model", "input", "output"}]
-- @returns nothing; creates the temporary table report_prices
CREATE OR REPLACE TEMPORARY TABLE report_prices ENGINE = Memory AS
SELECT JSONExtractString(p, 'model') AS model, JSONExtractFloat(p, 'input') AS input_usd_per_mtok, JSONExtractFloat(p, 'output') AS output_usd_per_mtok
FROM (SELECT arrayJoin(JSONExtractArrayRaw({prices:String})) AS p)
