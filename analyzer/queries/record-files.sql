-- @name record_files
-- @description Record that files were read, all in one statement: each one's size and modification time then, how many spans it held and how many lines were skipped (one statement per file cost a commit each: 160 s for 20,000 files).
-- @param paths   VARCHAR[] the files
-- @param sizes   BIGINT[]  bytes, in the same order
-- @param mtimes  DOUBLE[]  modification times, ms since the epoch
-- @param spans   BIGINT[]  spans read from each
-- @param skipped BIGINT[]  lines skipped in each
-- @returns nothing; inserts or replaces their rows of ingested_files
INSERT OR REPLACE INTO ingested_files
SELECT unnest(CAST($paths AS VARCHAR[])), unnest(CAST($sizes AS BIGINT[])), unnest(CAST($mtimes AS DOUBLE[])),
  unnest(CAST($spans AS BIGINT[])), unnest(CAST($skipped AS BIGINT[])), now()::TIMESTAMP;
