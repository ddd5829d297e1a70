-- @name add_pending_skipped
-- @description The lines a batch of files could not use, into pending_skipped until the ingest records them (record-pending.sql): the three lists in the same order.
-- @param files   VARCHAR[] the file of each line
-- @param lines   BIGINT[]  their 1-based numbers (0: the whole file)
-- @param reasons VARCHAR[] why
-- @returns nothing; inserts into pending_skipped
INSERT INTO pending_skipped
SELECT unnest(CAST($files AS VARCHAR[])), unnest(CAST($lines AS BIGINT[])), unnest(CAST($reasons AS VARCHAR[]));
