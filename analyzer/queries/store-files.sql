-- @name store_files
-- @description Read OTLP/JSON files (an ExportTraceServiceRequest per line, or one document per file) straight into the store, one row per span, in one pass: ids, times, kind, status, service, scope and the attributes as read here, made into stored rows by the span_rows macro (macros.sql: the attributes the leak model reads as columns, each span's role and, when the span names it, its run). A span without trace id, span id or times is stored with NULLs there: file-counts.sql counts it and the ingest removes it. Duplicates are removed afterwards (dedupe-spans.sql); runs of spans that do not name theirs are assigned by assign-runs.sql.
-- @param files       VARCHAR[]  the files to read, all compressed the same way
-- @param compression VARCHAR    uncompressed, gzip or zstd
-- @param source      VARCHAR    the name to record as each span's file (NULL: the file read)
-- @param max_object_bytes UBIGINT the longest line (or document) read; keep it near the real size: DuckDB sizes its read buffers by it
-- @param ingest_id   INTEGER    this ingest's number (next-ingest-id.sql)
-- @returns nothing; inserts into spans
INSERT INTO spans BY NAME
WITH raw AS (
  SELECT filename, resourceSpans
  FROM read_json($files,
    format = 'auto',
    compression = $compression,
    filename = true,
    maximum_object_size = $max_object_bytes,
    sample_size = 1,
    columns = {resourceSpans: 'STRUCT(
      resource STRUCT(attributes STRUCT(key VARCHAR, value STRUCT(stringValue VARCHAR, boolValue BOOLEAN, intValue VARCHAR, doubleValue VARCHAR, arrayValue JSON, kvlistValue JSON, bytesValue VARCHAR))[]),
      scopeSpans STRUCT(
        scope STRUCT(name VARCHAR),
        spans STRUCT(
          traceId VARCHAR, spanId VARCHAR, parentSpanId VARCHAR, name VARCHAR, kind VARCHAR,
          startTimeUnixNano VARCHAR, endTimeUnixNano VARCHAR,
          attributes STRUCT(key VARCHAR, value STRUCT(stringValue VARCHAR, boolValue BOOLEAN, intValue VARCHAR, doubleValue VARCHAR, arrayValue JSON, kvlistValue JSON, bytesValue VARCHAR))[],
          events STRUCT(timeUnixNano VARCHAR, name VARCHAR, attributes STRUCT(key VARCHAR, value STRUCT(stringValue VARCHAR, boolValue BOOLEAN, intValue VARCHAR, doubleValue VARCHAR, arrayValue JSON, kvlistValue JSON, bytesValue VARCHAR))[])[],
          status STRUCT(code VARCHAR, message VARCHAR)
        )[]
      )[]
    )[]'})
),
resource_spans AS (SELECT filename, unnest(resourceSpans) AS rs FROM raw),
scope_spans AS (
  SELECT filename,
    list_filter(rs.resource.attributes, a -> a.key = 'service.name')[1].value.stringValue AS service,
    otlp_process_key(rs.resource.attributes, list_filter(rs.resource.attributes, a -> a.key = 'service.name')[1].value.stringValue) AS process_key,
    unnest(rs.scopeSpans) AS ss
  FROM resource_spans
),
flat AS (SELECT filename, service, process_key, ss.scope.name AS scope, unnest(ss.spans) AS s FROM scope_spans),
-- Attributes as two lists, keys and values (as text); attr(ks, vs, key) looks one up.
read AS (
  SELECT
    otlp_id(s.traceId) AS trace_id,
    otlp_id(s.spanId) AS span_id,
    otlp_id(s.parentSpanId) AS parent_span_id,
    coalesce(s.name, '') AS name,
    otlp_kind(s.kind) AS kind,
    -- A time is ns since the epoch, 0 to 2^63 - 1: a negative one, or one past int64, is no time (NULL: counted
    -- as a span without times and named in input.skipped, as the careful path names it).
    CASE WHEN TRY_CAST(s.startTimeUnixNano AS BIGINT) >= 0 THEN TRY_CAST(s.startTimeUnixNano AS BIGINT) END AS start_ns,
    CASE WHEN TRY_CAST(s.endTimeUnixNano AS BIGINT) >= 0 THEN TRY_CAST(s.endTimeUnixNano AS BIGINT) END AS end_ns,
    otlp_status(s.status.code) AS status_code,
    nullif(s.status.message, '') AS status_message,
    service,
    process_key,
    scope,
    coalesce($source, filename) AS file,
    list_transform(s.attributes, a -> a.key) AS ks,
    list_transform(s.attributes, a -> otlp_value(a.value)) AS vs,
    CASE WHEN len(s.events) > 0
         THEN list_transform(s.events, e -> {'name': e.name, 'ks': list_transform(e.attributes, a -> a.key), 'vs': list_transform(e.attributes, a -> otlp_value(a.value))})
    END AS events
  FROM flat
)
SELECT *, $ingest_id AS ingest_id FROM span_rows(read);
