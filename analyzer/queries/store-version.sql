-- @name store_version
-- @description Which version of the store's layout wrote this store (no row: a new store, or one from before versions).
-- @returns rows
-- @column value text
SELECT value FROM store_meta WHERE key = 'store_version';
