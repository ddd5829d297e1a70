-- @name write_span_files
-- @description Write the spans table to Parquet in one COPY (for a write of many partitions; span-files.ts writes few with write-span-partition.sql), a folder per day (of the span's start, UTC) and service, one file per partition named after this write (its files then replace those of the same days in span_files, store.ts). Partition values are escaped by DuckDB (a service name cannot leave the folder); the folder is named by service_folder (macros.sql), which stays within the file system's 255 bytes for a name of any script and length.
-- @param dir     VARCHAR the store's spans folder
-- @param pattern VARCHAR the file name, without extension, for this write ({i} numbers the files of a partition)
-- @returns rows: the spans written and the files
-- @column Count bigint
-- @column Files text[]
COPY (SELECT *, span_day(start_ns) AS day, service_folder(service) AS service_folder FROM spans) TO $dir
  (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2, PARTITION_BY (day, service_folder), WRITE_PARTITION_COLUMNS true, OVERWRITE_OR_IGNORE true,
   FILENAME_PATTERN $pattern, RETURN_FILES true);
