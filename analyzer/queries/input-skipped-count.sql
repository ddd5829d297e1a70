-- @name input_skipped_count
-- @description How many lines could not be used in the files the inputs of this ingest name (input_files, ingest-lists.sql).
-- @returns rows
-- @column n bigint
SELECT count(*) AS n FROM skipped_lines WHERE file IN (SELECT path FROM input_files);
