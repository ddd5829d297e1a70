-- @name write_span_files
-- @description Write the spans table to Parquet, a folder per day (of the span's start, UTC) and service, one file per partition named after this write (its files then replace those of the same days in span_files, store.ts). Partition values are escaped by DuckDB (a service name cannot leave the folder).
-- @param dir     VARCHAR the store's spans folder
-- @param pattern VARCHAR the file name, without extension, for this write ({i} numbers the files of a partition)
-- @returns Count, Files: the spans written and the files
COPY (SELECT *, span_day(start_ns) AS day FROM spans) TO $dir
  (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (day, service), WRITE_PARTITION_COLUMNS true, OVERWRITE_OR_IGNORE true,
   FILENAME_PATTERN $pattern, RETURN_FILES true);
