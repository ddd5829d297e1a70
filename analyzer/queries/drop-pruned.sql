-- @name drop_pruned
-- @description Remove this ingest's spans on days the store's retention already removed (afterstop prune): a trace file that grew is read again from its start, and would bring them back. pruned-span-counts.sql counts them first, so that the ingest says so.
-- @param ingest_id INTEGER this ingest's number
-- @returns nothing
DELETE FROM spans
WHERE ingest_id = $ingest_id
  AND span_day(start_ns) < (SELECT CAST(value AS DATE) FROM store_meta WHERE key = 'pruned_before');
