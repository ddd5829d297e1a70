-- @name drop_invalid
-- @description Remove the spans of this ingest that cannot be used (no trace id, span id or times, or an end before the start); the ingest has counted them as skipped.
-- @param ingest_id INTEGER this ingest
-- @returns nothing; deletes from spans
DELETE FROM spans
WHERE ingest_id = $ingest_id AND (trace_id IS NULL OR span_id IS NULL OR start_ns IS NULL OR end_ns IS NULL OR end_ns < start_ns);
