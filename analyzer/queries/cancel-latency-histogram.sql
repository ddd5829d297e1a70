-- Generated from queries/model/cancel-latency-histogram.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
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
  SELECT 'ack' AS measure, ack_ms AS ms FROM report_cancel_latency WHERE ack_ms IS NOT NULL
  UNION ALL
  SELECT 'settle', settle_ms FROM report_cancel_latency WHERE settle_ms IS NOT NULL
),
-- How many latencies are within each bound (all of them within the last, unbounded one): a bucket holds the
-- difference from the bound before it. Grouped by bucket, not by run: placing each latency in its first bucket
-- grouped 640,000 latencies by run id at 10M spans (1.3 s of work in a 0.3-0.4 s query).
within AS (
  SELECT l.measure, b.i, count(*) AS n
  FROM latencies AS l CROSS JOIN bounds AS b
  WHERE b.upper_ms IS NULL OR l.ms <= b.upper_ms
  GROUP BY l.measure, b.i
)
SELECT m.measure, b.upper_ms, coalesce(w.n, 0) - coalesce(v.n, 0) AS runs
FROM measures AS m CROSS JOIN bounds AS b
LEFT JOIN within AS w ON w.measure = m.measure AND w.i = b.i
LEFT JOIN within AS v ON v.measure = m.measure AND v.i = b.i - 1
ORDER BY m.measure, b.i;
