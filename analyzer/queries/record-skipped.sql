-- @name record_skipped
-- @description Record the lines of files that could not be used, and why: one row per line, the three lists in the same order.
-- @param files   VARCHAR[] the file of each line
-- @param lines   BIGINT[]  their 1-based numbers (0: the whole file)
-- @param reasons VARCHAR[] why
-- @returns nothing; inserts into skipped_lines
INSERT INTO skipped_lines
SELECT unnest(CAST($files AS VARCHAR[])), unnest(CAST($lines AS BIGINT[])), unnest(CAST($reasons AS VARCHAR[]));
