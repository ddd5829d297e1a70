-- @name store_tempo_v5
-- @description Read a Grafana Tempo vParquet5 block (its data.parquet) into the store, one row per span, through the span_rows macro as store-files.sql does. vParquet5 has no well-known span columns; its dedicated columns are lists (one value: a scalar) and only those in use are in the file, so they are read through JSON, and only when meta.json names some: the first value under the attribute's name.
-- @param file               VARCHAR    the block's data.parquet
-- @param span_dedicated     VARCHAR[]  the attribute kept in String01, String02, ... (as many as meta.json names), from meta.json
-- @param span_dedicated_int VARCHAR[]  the attribute kept in Int01, Int02, ...
-- @param ingest_id          INTEGER    this ingest's number (next-ingest-id.sql)
-- @returns nothing; inserts into spans
INSERT INTO spans BY NAME
WITH flat AS (SELECT * FROM tempo_spans($file)),
dedicated AS (
  SELECT *,
    CASE WHEN len($span_dedicated) + len($span_dedicated_int) > 0 THEN json_extract(to_json(sp), '$.DedicatedAttributes') END AS d
  FROM flat
),
taken AS (
  SELECT *,
    list_filter(list_concat(
      -- A list (one value: a scalar); the earlier vParquet5 previews kept a scalar.
      list_transform(range(1, len($span_dedicated) + 1), i -> {'k': $span_dedicated[i],
        'v': coalesce(json_extract_string(d, '$.String' || lpad(i::VARCHAR, 2, '0') || '[0]'), json_extract_string(d, '$.String' || lpad(i::VARCHAR, 2, '0')))}),
      list_transform(range(1, len($span_dedicated_int) + 1), i -> {'k': $span_dedicated_int[i],
        'v': coalesce(json_extract_string(d, '$.Int' || lpad(i::VARCHAR, 2, '0') || '[0]'), json_extract_string(d, '$.Int' || lpad(i::VARCHAR, 2, '0')))})
    ), e -> e.k IS NOT NULL AND e.v IS NOT NULL) AS columns
  FROM dedicated
),
read AS (SELECT * FROM tempo_read(taken))
SELECT *, $ingest_id AS ingest_id FROM span_rows(read);
