-- @name replace_span_files
-- @description A write's files take the place of the files of the same days (run in a transaction with record-span-files.sql): the files no longer live are returned, to be deleted.
-- @param days VARCHAR[] the days the write covers (YYYY-MM-DD)
-- @returns rows: the replaced files (relative to the store's folder)
-- @column path text
DELETE FROM span_files WHERE day IN (SELECT CAST(unnest($days) AS DATE)) RETURNING path;
