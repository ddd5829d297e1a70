-- @name load_span_files
-- @description Read Parquet files of the store back into the spans table (touched-span-files.sql).
-- @param files VARCHAR[] the files (absolute paths)
-- @returns nothing; inserts into spans
INSERT INTO spans BY NAME SELECT * EXCLUDE (day, service_folder) FROM read_parquet($files, hive_partitioning = false);
