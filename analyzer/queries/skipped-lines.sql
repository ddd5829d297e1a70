-- @name skipped_lines
-- @description The lines that could not be used in the given files, for the report.
-- @param files VARCHAR[] the files named by the inputs
-- @returns rows
-- @column file   text
-- @column line   int
-- @column reason text
SELECT file, line, reason FROM skipped_lines WHERE list_contains(CAST($files AS VARCHAR[]), file) ORDER BY file, line;
