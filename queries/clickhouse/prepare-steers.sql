-- @name prepare_steers
-- @description ClickHouse: report_steers, as DuckDB's prepare-steers.sql: each steering message (enqueue, inject, drop markers by steer id in its scope) with its inject latency, whether it was dropped, and whether it went inside a tool batch (a violation).
-- @returns nothing; creates the temporary table report_steers
CREATE OR REPLACE TEMPORARY TABLE report_steers ENGINE = Memory AS
WITH marks AS (
  SELECT s.run_id AS run_id, s.trace_id AS trace_id, s.name AS name, s.start_ns AS start_ns, s.steer_id AS steer_id, s.steer_position AS position,
    coalesce(s.conversation_id, r.conversation_id, concat('run:', r.run_id)) AS scope
  FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
  WHERE s.name IN ('afterstop.steer.enqueue', 'afterstop.steer.inject', 'afterstop.steer.drop')
),
steers AS (
  SELECT scope, steer_id,
    if(countIf(name = 'afterstop.steer.enqueue') > 0, argMinIf(run_id, start_ns, name = 'afterstop.steer.enqueue'), argMin(run_id, start_ns)) AS run_id,
    if(countIf(name = 'afterstop.steer.enqueue') > 0, argMinIf(trace_id, start_ns, name = 'afterstop.steer.enqueue'), argMin(trace_id, start_ns)) AS trace_id,
    if(countIf(name = 'afterstop.steer.enqueue') > 0, minIf(start_ns, name = 'afterstop.steer.enqueue'), NULL) AS enqueued_ns,
    if(countIf(name = 'afterstop.steer.inject') > 0, minIf(start_ns, name = 'afterstop.steer.inject'), NULL) AS injected_ns,
    if(countIf(name = 'afterstop.steer.inject') > 0, argMinIf(position, start_ns, name = 'afterstop.steer.inject'), NULL) AS position,
    countIf(name = 'afterstop.steer.drop') > 0 AS dropped_marker
  FROM marks GROUP BY scope, steer_id
)
SELECT *,
  -- rounded half away from zero to the microsecond, as DuckDB rounds
  if(injected_ns IS NOT NULL AND enqueued_ns IS NOT NULL, sign(injected_ns - enqueued_ns) * floor(abs((injected_ns - enqueued_ns) / 1e6) * 1000 + 0.5) / 1000, NULL) AS inject_ms,
  (enqueued_ns IS NOT NULL AND (injected_ns IS NULL OR dropped_marker)) AS dropped,
  position = 'inside_tool_batch' AS violation
FROM steers
