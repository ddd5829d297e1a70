-- @name cancel_latency_histogram
-- @description ClickHouse: how the window's ack and settle latencies are spread over fixed buckets (upper bounds in ms, the last open), as DuckDB's cancel-latency-histogram.sql.
-- @returns measure, upper_ms, runs
WITH
  [10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 5000.0, 10000.0] AS uppers,
latencies AS (
  SELECT 'ack' AS measure, ack_ms AS ms FROM report_cancel_latency WHERE ack_ms IS NOT NULL
  UNION ALL
  SELECT 'settle', settle_ms FROM report_cancel_latency WHERE settle_ms IS NOT NULL
),
placed AS (
  SELECT measure, toUInt32(arrayFirstIndex(u -> ms <= u, uppers)) AS i0 FROM latencies
),
grid AS (
  SELECT m.measure AS measure, b.i AS i FROM (SELECT arrayJoin(['ack', 'settle']) AS measure) AS m CROSS JOIN (SELECT toUInt32(arrayJoin(range(1, 12))) AS i) AS b
)
SELECT g.measure AS measure, if(g.i <= 10, uppers[g.i], NULL) AS upper_ms, countIf(p.measure IS NOT NULL) AS runs
FROM grid AS g LEFT JOIN placed AS p ON p.measure = g.measure AND if(p.i0 = 0, 11, p.i0) = g.i
GROUP BY g.measure, g.i
ORDER BY g.measure, g.i
