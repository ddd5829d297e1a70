-- @name cancel_latency_histogram
-- @description How cancel latencies are spread (for a chart): per measure (ack, settle), the number of cancelled runs in the window whose latency falls in each bucket, a bucket holding the latencies above the previous bound and up to its own (upper_ms NULL: above the last bound). Every bucket is listed, empty ones with 0.
-- @returns measure, upper_ms, runs
WITH bounds(i, upper_ms) AS (
  VALUES (1, 10.0), (2, 25.0), (3, 50.0), (4, 100.0), (5, 250.0), (6, 500.0), (7, 1000.0),
         (8, 2500.0), (9, 5000.0), (10, 10000.0), (11, NULL)
),
measures(measure) AS (VALUES ('ack'), ('settle')),
latencies AS (
  SELECT 'ack' AS measure, ack_ms AS ms FROM report_cancel_latency WHERE ack_ms IS NOT NULL
  UNION ALL
  SELECT 'settle', settle_ms FROM report_cancel_latency WHERE settle_ms IS NOT NULL
),
placed AS (
  SELECT measure, (SELECT min(i) FROM bounds WHERE upper_ms IS NULL OR ms <= upper_ms) AS i FROM latencies
)
SELECT m.measure, b.upper_ms, count(p.i) AS runs
FROM measures m CROSS JOIN bounds b
LEFT JOIN placed p ON p.measure = m.measure AND p.i = b.i
GROUP BY m.measure, b.i, b.upper_ms
ORDER BY m.measure, b.i;
