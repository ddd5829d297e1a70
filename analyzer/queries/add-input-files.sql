-- @name add_input_files
-- @description A batch of the trace files the inputs name, into input_files (ingest-lists.sql).
-- @param paths VARCHAR[] the files (absolute paths)
-- @returns nothing; inserts into input_files
INSERT INTO input_files SELECT unnest(CAST($paths AS VARCHAR[]));
