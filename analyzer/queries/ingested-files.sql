-- @name ingested_files
-- @description The files the store has read, with the size and modification time they had then (a file that changed since is read again).
-- @returns rows
-- @column path     text
-- @column size     bigint
-- @column mtime_ms float
SELECT path, size, mtime_ms FROM ingested_files;
