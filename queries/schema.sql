-- @name schema
-- @description The store's tables: every span once, the files already read, the lines that could not be read.
-- @returns nothing; creates what is missing, changes nothing that exists

CREATE TABLE IF NOT EXISTS spans (
  trace_id        VARCHAR NOT NULL,
  span_id         VARCHAR NOT NULL,
  parent_span_id  VARCHAR,               -- NULL for a root span
  name            VARCHAR NOT NULL,
  kind            TINYINT,               -- OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer
  start_ns        BIGINT NOT NULL,       -- nanoseconds since the epoch
  end_ns          BIGINT NOT NULL,
  status_code     TINYINT NOT NULL,      -- 0 unset, 1 ok, 2 error
  status_message  VARCHAR,
  service         VARCHAR,               -- resource service.name
  scope           VARCHAR,               -- instrumentation scope name
  attrs           MAP(VARCHAR, VARCHAR), -- span attributes, rendered as text (arrays and maps as JSON)
  events          STRUCT(name VARCHAR, time_ns BIGINT, attrs MAP(VARCHAR, VARCHAR))[],
  file            VARCHAR,               -- the file it was first read from
  PRIMARY KEY (trace_id, span_id)
);

CREATE TABLE IF NOT EXISTS ingested_files (
  path        VARCHAR PRIMARY KEY,
  size        BIGINT NOT NULL,           -- bytes when it was read
  mtime_ms    DOUBLE NOT NULL,
  spans       BIGINT NOT NULL,           -- spans read from it (duplicates included)
  skipped     BIGINT NOT NULL,           -- lines that could not be read
  ingested_at TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS skipped_lines (
  file    VARCHAR NOT NULL,
  line    BIGINT NOT NULL,               -- 1-based; 0 when the whole file could not be read
  reason  VARCHAR NOT NULL
);
