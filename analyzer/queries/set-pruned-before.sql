-- @name set_pruned_before
-- @description Remember how far the store's retention reached (afterstop prune): the first day kept, never moved back.
-- @param day VARCHAR the first day kept (YYYY-MM-DD)
-- @returns nothing
INSERT OR REPLACE INTO store_meta
SELECT 'pruned_before', CAST(greatest(CAST($day AS DATE), coalesce((SELECT CAST(value AS DATE) FROM store_meta WHERE key = 'pruned_before'), CAST($day AS DATE))) AS VARCHAR);
