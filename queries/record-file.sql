-- @name record_file
-- @description Record that a file was read: its size and modification time then, how many spans it held and how many lines were skipped.
-- @param path    VARCHAR the file
-- @param size    BIGINT  bytes
-- @param mtime   DOUBLE  modification time, ms since the epoch
-- @param spans   BIGINT  spans read from it
-- @param skipped BIGINT  lines skipped
-- @returns nothing; inserts or replaces its row of ingested_files
INSERT OR REPLACE INTO ingested_files VALUES ($path, $size, $mtime, $spans, $skipped, now()::TIMESTAMP);
