-- @name staged_counts
-- @description Per file of the staging table: spans read, and spans that cannot be used (no trace id, span id or times).
-- @returns file, spans, invalid
SELECT file, count(*) AS spans, count(*) FILTER (WHERE NOT valid) AS invalid FROM staged GROUP BY file ORDER BY file;
