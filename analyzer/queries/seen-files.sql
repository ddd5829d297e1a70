-- @name seen_files
-- @description Of a batch of files, those the store has read, with the size and modification time they had then (a file that changed since is read again).
-- @param paths VARCHAR[] the files (absolute paths)
-- @returns rows
-- @column path     text
-- @column size     bigint
-- @column mtime_ms float
SELECT path, size, mtime_ms FROM ingested_files WHERE path IN (SELECT unnest(CAST($paths AS VARCHAR[])));
