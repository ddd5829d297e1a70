-- @name prepare_spans
-- @description The spans a report reads: the Parquet files of its window (report-span-files.sql) as the connection's variable report_files, which the view report_spans (prepare-spans-view.sql) reads. A view, not a table: each query then reads only the columns and rows it needs straight from the files, where a table of every span would spill past the memory limit and be read back by every query (measured at 10,000,000 spans: 7.6 s against 17.2 s). With no file, prepare-spans-empty.sql.
-- @param files VARCHAR[] the files (absolute paths), at least one
-- @returns nothing; sets the variable report_files
SET VARIABLE report_files = $files;
