-- @name store_tempo_v4
-- @description Read a Grafana Tempo vParquet4 block (its data.parquet: a trace per row, resource spans `rs`, scope spans `ss`) into the store, one row per span, through the span_rows macro as store-files.sql does. What Tempo took out of a span's attributes is put back under its name: http.method, http.url and http.status_code from their columns, and the dedicated columns String01..String10 under the attributes meta.json names for them.
-- @param file           VARCHAR    the block's data.parquet
-- @param span_dedicated VARCHAR[]  the attribute kept in String01, String02, ... String10 (NULL where unused), from meta.json
-- @param ingest_id      INTEGER    this ingest's number (next-ingest-id.sql)
-- @returns nothing; inserts into spans
INSERT INTO spans BY NAME
WITH flat AS (SELECT * FROM tempo_spans($file)),
taken AS (
  SELECT *,
    list_filter([
      {'k': $span_dedicated[1], 'v': sp.DedicatedAttributes.String01}, {'k': $span_dedicated[2], 'v': sp.DedicatedAttributes.String02},
      {'k': $span_dedicated[3], 'v': sp.DedicatedAttributes.String03}, {'k': $span_dedicated[4], 'v': sp.DedicatedAttributes.String04},
      {'k': $span_dedicated[5], 'v': sp.DedicatedAttributes.String05}, {'k': $span_dedicated[6], 'v': sp.DedicatedAttributes.String06},
      {'k': $span_dedicated[7], 'v': sp.DedicatedAttributes.String07}, {'k': $span_dedicated[8], 'v': sp.DedicatedAttributes.String08},
      {'k': $span_dedicated[9], 'v': sp.DedicatedAttributes.String09}, {'k': $span_dedicated[10], 'v': sp.DedicatedAttributes.String10},
      {'k': 'http.method', 'v': sp.HttpMethod}, {'k': 'http.url', 'v': sp.HttpUrl}, {'k': 'http.status_code', 'v': sp.HttpStatusCode::VARCHAR}
    ], e -> e.k IS NOT NULL AND e.v IS NOT NULL) AS columns
  FROM flat
),
read AS (SELECT * FROM tempo_read(taken))
SELECT *, $ingest_id AS ingest_id FROM span_rows(read);
