-- @name store_staged
-- @description Add the valid staged spans to the store; a span already stored (same trace and span id: a collector retry, a file read again after it grew) is kept once.
-- @returns nothing; inserts into spans
INSERT OR IGNORE INTO spans
SELECT trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns, status_code, status_message,
       service, scope, attrs, events, file
FROM staged
WHERE valid;
