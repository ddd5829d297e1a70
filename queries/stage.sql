-- @name stage
-- @description Read OTLP/JSON files (an ExportTraceServiceRequest per line, or one document per file) into the temporary table staged: one row per span, flattened, with `valid` false for a span without trace id, span id or times.
-- @param files       VARCHAR[]  the files to read, all compressed the same way
-- @param compression VARCHAR    uncompressed, gzip or zstd
-- @param source      VARCHAR    the name to record as each span's file (NULL: the file read)
-- @param max_object_bytes UBIGINT the longest line (or document) read; keep it near the real size: DuckDB sizes its read buffers by it
-- @returns nothing; creates the temporary table staged
CREATE OR REPLACE TEMP TABLE staged AS
WITH raw AS (
  SELECT filename, resourceSpans
  FROM read_json($files,
    format = 'auto',
    compression = $compression,
    filename = true,
    maximum_object_size = $max_object_bytes,
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
    unnest(rs.scopeSpans) AS ss
  FROM resource_spans
),
flat AS (SELECT filename, service, ss.scope.name AS scope, unnest(ss.spans) AS s FROM scope_spans),
columns AS (
SELECT
  otlp_id(s.traceId) AS trace_id,
  otlp_id(s.spanId) AS span_id,
  otlp_id(s.parentSpanId) AS parent_span_id,
  coalesce(s.name, '') AS name,
  otlp_kind(s.kind) AS kind,
  TRY_CAST(s.startTimeUnixNano AS BIGINT) AS start_ns,
  TRY_CAST(s.endTimeUnixNano AS BIGINT) AS end_ns,
  otlp_status(s.status.code) AS status_code,
  nullif(s.status.message, '') AS status_message,
  service,
  scope,
  otlp_attrs(s.attributes) AS attrs,
  CASE WHEN len(s.events) > 0
       THEN list_transform(s.events, e -> {'name': e.name, 'time_ns': TRY_CAST(e.timeUnixNano AS BIGINT), 'attrs': otlp_attrs(e.attributes)})
  END AS events,                         -- NULL when the span has none
  coalesce($source, filename) AS file
FROM flat
)
SELECT *, (trace_id IS NOT NULL AND span_id IS NOT NULL AND start_ns IS NOT NULL AND end_ns IS NOT NULL) AS valid
FROM columns;
