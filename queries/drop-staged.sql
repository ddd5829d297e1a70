-- @name drop_staged
-- @description The staging table is no longer needed once every file of an ingest is stored.
-- @returns nothing
DROP TABLE IF EXISTS staged;
