-- @name input_skipped_lines
-- @description The lines that could not be used in the files the inputs of this ingest name (input_files, ingest-lists.sql), for the report: the first $limit, in order of file and line, a line's reasons as they were found (input-skipped-count.sql counts them all).
-- @param limit BIGINT at most this many
-- @returns rows
-- @column file   text
-- @column line   int
-- @column reason text
SELECT file, line, reason FROM skipped_lines WHERE file IN (SELECT path FROM input_files) ORDER BY file, line, rowid LIMIT $limit;
