-- @name cancel_latency_histogram
-- @description How cancel latencies are spread (for a chart): per measure (ack, settle), the number of cancelled runs in the window whose latency falls in each bucket, a bucket holding the latencies above the previous bound and up to its own (upper_ms NULL: above the last bound). Every bucket is listed, empty ones with 0.
-- @returns rows
-- @column measure  text
-- @column upper_ms float?
-- @column runs     int
WITH bounds AS (
  SELECT 1 AS i, CAST(10.0 AS DOUBLE) AS upper_ms UNION ALL SELECT 2, 25.0 UNION ALL SELECT 3, 50.0 UNION ALL SELECT 4, 100.0
  UNION ALL SELECT 5, 250.0 UNION ALL SELECT 6, 500.0 UNION ALL SELECT 7, 1000.0 UNION ALL SELECT 8, 2500.0
  UNION ALL SELECT 9, 5000.0 UNION ALL SELECT 10, 10000.0 UNION ALL SELECT 11, NULL
),
measures AS (SELECT 'ack' AS measure UNION ALL SELECT 'settle'),
latencies AS (
  SELECT 'ack' AS measure, run_id, ack_ms AS ms FROM report_cancel_latency WHERE ack_ms IS NOT NULL
  UNION ALL
  SELECT 'settle', run_id, settle_ms FROM report_cancel_latency WHERE settle_ms IS NOT NULL
),
-- Each latency in the first bucket whose bound it does not pass.
placed AS (
  SELECT l.measure, l.run_id, min(b.i) AS i
  FROM latencies AS l CROSS JOIN bounds AS b
  WHERE b.upper_ms IS NULL OR l.ms <= b.upper_ms
  GROUP BY l.measure, l.run_id
)
SELECT m.measure, b.upper_ms, count(p.i) AS runs
FROM measures AS m CROSS JOIN bounds AS b
LEFT JOIN placed AS p ON p.measure = m.measure AND p.i = b.i
GROUP BY m.measure, b.i, b.upper_ms
ORDER BY m.measure, b.i;
