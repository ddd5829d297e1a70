-- @name prepare_spans_empty
-- @description report_spans for a window that holds no Parquet file: empty, with the columns of spans.
-- @returns nothing; creates report_spans
CREATE OR REPLACE TEMP TABLE report_spans AS SELECT * FROM spans WHERE false;
