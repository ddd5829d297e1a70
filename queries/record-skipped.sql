-- @name record_skipped
-- @description Record the lines of a file that could not be used, and why.
-- @param file    VARCHAR   the file
-- @param lines   BIGINT[]  their 1-based numbers (0: the whole file)
-- @param reasons VARCHAR[]  why, in the same order
-- @returns nothing; inserts into skipped_lines
INSERT INTO skipped_lines
SELECT $file, unnest(CAST($lines AS BIGINT[])), unnest(CAST($reasons AS VARCHAR[]));
