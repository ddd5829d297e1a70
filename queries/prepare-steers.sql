-- Generated from queries/model/prepare-steers.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_steers
-- @description Steering messages (METRICS.md §7), one row per steer id and conversation: the run that enqueued it, when it was enqueued and first injected, where (position), inject_ms = inject − enqueue, and dropped when enqueued and never injected (or explicitly dropped).
-- @returns nothing; creates the temporary table report_steers
CREATE OR REPLACE TEMPORARY TABLE report_steers AS
WITH marks AS (
  SELECT s.run_id, s.trace_id, s.name, s.start_ns, s.steer_id AS steer_id, s.steer_position AS position,
    coalesce(s.conversation_id, r.conversation_id, 'run:' || r.run_id) AS scope
  FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
  WHERE s.name IN ('afterstop.steer.enqueue', 'afterstop.steer.inject', 'afterstop.steer.drop')
),
-- The enqueuing run and its trace, one aggregate over both (the first enqueue, else the first mark): each
-- aggregate over text into a group per steer was the most of this query's time.
firsts AS (
  SELECT scope, steer_id,
    argMin((run_id, trace_id), (name <> 'afterstop.steer.enqueue', start_ns)) AS first,
    min(start_ns) FILTER (WHERE name = 'afterstop.steer.enqueue') AS enqueued_ns,
    min(start_ns) FILTER (WHERE name = 'afterstop.steer.inject') AS injected_ns,
    argMin(position, start_ns) FILTER (WHERE name = 'afterstop.steer.inject') AS position,
    count(*) FILTER (WHERE name = 'afterstop.steer.drop') > 0 AS dropped_marker
  FROM marks GROUP BY scope, steer_id
),
steers AS (
  SELECT scope, steer_id, struct_extract_at(first, 1) AS run_id, struct_extract_at(first, 2) AS trace_id, enqueued_ns, injected_ns, position, dropped_marker
  FROM firsts
)
SELECT *,
  CASE WHEN injected_ns IS NOT NULL AND enqueued_ns IS NOT NULL THEN round((injected_ns - enqueued_ns) / 1e6, 3) END AS inject_ms,
  (enqueued_ns IS NOT NULL AND (injected_ns IS NULL OR dropped_marker)) AS dropped,
  position = 'inside_tool_batch' AS violation
FROM steers;
