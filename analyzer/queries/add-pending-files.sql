-- @name add_pending_files
-- @description What a batch of files read gave (ingest.ts), into pending_files until the ingest records them (record-pending.sql): the five lists in the same order.
-- @param paths   VARCHAR[] the files
-- @param sizes   BIGINT[]  bytes when read
-- @param mtimes  DOUBLE[]  modification times, ms since the epoch
-- @param spans   BIGINT[]  spans read from each
-- @param again   BOOLEAN[] not marked read (looked at again next time): only its skipped lines are kept
-- @returns nothing; inserts into pending_files
INSERT INTO pending_files
SELECT unnest(CAST($paths AS VARCHAR[])), unnest(CAST($sizes AS BIGINT[])), unnest(CAST($mtimes AS DOUBLE[])),
  unnest(CAST($spans AS BIGINT[])), unnest(CAST($again AS BOOLEAN[]));
