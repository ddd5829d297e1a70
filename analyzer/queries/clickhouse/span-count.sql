-- @name span_count
-- @description ClickHouse: how many spans the report read (spans.sql's temporary table), each once.
-- @returns rows (one)
-- @column n int
SELECT count() AS n FROM spans
