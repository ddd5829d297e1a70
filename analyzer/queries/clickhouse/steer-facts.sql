-- Generated from queries/model/steer-facts.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name steer_facts
-- @description Steering messages (METRICS.md §7), one row per steer id and scope, from the marks of steer_mark_facts: the run that enqueued it, when it was enqueued and first injected, where (position), inject_ms = inject − enqueue, and dropped when enqueued and never injected (or explicitly dropped). Recomputed for the scopes an ingest or a prune touched (DuckDB: touched_scopes, inserted into the store's steer_facts, so that a report reads them as they are; ClickHouse: every scope, the session's steer_facts).
-- @returns nothing; fills steer_facts (with the enqueuing run's service, agent, framework and start, run_start_ns)
CREATE OR REPLACE TEMPORARY TABLE steer_facts AS
WITH firsts AS (
  -- The enqueuing run and its trace, one aggregate over both (the first enqueue, else the first mark): each
  -- aggregate over text into a group per steer was the most of this query's time.
  SELECT scope, steer_id,
    argMin((run_id, trace_id, service, agent, framework, run_start_ns), (name <> 'afterstop.steer.enqueue', start_ns)) AS first,
    min(start_ns) FILTER (WHERE name = 'afterstop.steer.enqueue') AS enqueued_ns,
    min(start_ns) FILTER (WHERE name = 'afterstop.steer.inject') AS injected_ns,
    argMin(position, start_ns) FILTER (WHERE name = 'afterstop.steer.inject') AS position,
    count(*) FILTER (WHERE name = 'afterstop.steer.drop') > 0 AS dropped_marker
  FROM steer_mark_facts
  WHERE true
  GROUP BY scope, steer_id
),
steers AS (
  SELECT scope, steer_id, tupleElement(first, 1) AS run_id, tupleElement(first, 2) AS trace_id, enqueued_ns, injected_ns, position, dropped_marker,
    -- The enqueuing run's group and start: steering.sql reads them without joining the runs.
    tupleElement(first, 3) AS service, tupleElement(first, 4) AS agent, tupleElement(first, 5) AS framework, tupleElement(first, 6) AS run_start_ns
  FROM firsts
)
SELECT *,
  CASE WHEN injected_ns IS NOT NULL AND enqueued_ns IS NOT NULL THEN (sign((injected_ns - enqueued_ns) / 1e6) * floor(abs((injected_ns - enqueued_ns) / 1e6) * 1e3 + 0.5) / 1e3) END AS inject_ms,
  (enqueued_ns IS NOT NULL AND (injected_ns IS NULL OR dropped_marker)) AS dropped,
  position = 'inside_tool_batch' AS violation
FROM steers
