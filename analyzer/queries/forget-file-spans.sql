-- @name forget_file_spans
-- @description Remove what this ingest stored from one file, before the careful reader stores it again.
-- @param ingest_id INTEGER this ingest
-- @param file      VARCHAR the file
-- @returns nothing; deletes from spans
DELETE FROM spans WHERE ingest_id = $ingest_id AND file = $file;
