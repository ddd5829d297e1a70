-- @name dedupe_spans
-- @description Keep each span once (same trace and span id: a collector's retry, a file read again after it grew, a copy in another file). Only spans this ingest stored can be repeats, of each other or of spans stored before. The copy kept is the one stored first (the earliest ingest), then the one from the first file by name, then, within one file, the one that ended last.
-- @param ingest_id INTEGER this ingest
-- @returns nothing; deletes from spans
DELETE FROM spans WHERE rowid IN (
  WITH this AS (SELECT trace_id, span_id FROM spans WHERE ingest_id = $ingest_id),
  repeated AS (
    SELECT trace_id, span_id FROM this GROUP BY trace_id, span_id HAVING count(*) > 1
    UNION
    SELECT n.trace_id, n.span_id FROM this n JOIN spans o ON o.trace_id = n.trace_id AND o.span_id = n.span_id
    WHERE o.ingest_id < $ingest_id
  )
  SELECT s.rowid FROM spans s SEMI JOIN repeated r ON r.trace_id = s.trace_id AND r.span_id = s.span_id
  QUALIFY row_number() OVER (PARTITION BY s.trace_id, s.span_id ORDER BY s.ingest_id, s.file, s.end_ns DESC, s.rowid) > 1
);
