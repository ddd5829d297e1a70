-- @name next_ingest_id
-- @description The number of a new ingest: one more than the last that stored spans.
-- @returns id
SELECT CAST(coalesce(max(ingest_id), 0) + 1 AS INTEGER) AS id FROM spans;
