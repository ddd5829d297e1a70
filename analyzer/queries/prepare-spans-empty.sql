-- @name prepare_spans_empty
-- @description report_spans for a window that holds no Parquet file: an empty view with the columns of spans.
-- @returns nothing; creates the view report_spans
CREATE OR REPLACE TEMP VIEW report_spans AS SELECT * FROM spans WHERE false;
