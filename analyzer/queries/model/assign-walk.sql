-- @name assign_walk
-- @description The walk of assign-runs.sql (METRICS.md, introduction: a span's run is its nearest invoke_agent ancestor): from each span of assign_spans (assign-spans.sql) that does not name its run, and each run span, up its parents to the nearest run span or the top of what was exported; a row per span and ancestor on the way, with its depth (0: the span itself, at most 256) and whether the ancestor is a run span. Kept in a temporary table that assign-runs.sql reads several times (ClickHouse evaluated the recursive CTE again at each reference).
-- @returns nothing; creates the temporary table assign_walk
@statement_table(assign_walk)
WITH RECURSIVE
walk AS (
  -- Spans that name their run (afterstop.run.id) need no walk: most spans of instrumented agents.
  SELECT trace_id, span_id, span_id AS ancestor, CAST(0 AS BIGINT) AS depth, coalesce(is_run_span, false) AS at_run
  FROM assign_spans WHERE attr_run_id IS NULL OR is_run_span
  UNION ALL
  SELECT w.trace_id, w.span_id, p.span_id, w.depth + 1, coalesce(p.is_run_span, false)
  FROM walk AS w
  JOIN assign_spans AS c ON c.trace_id = w.trace_id AND c.span_id = w.ancestor
  JOIN assign_spans AS p ON p.trace_id = c.trace_id AND p.span_id = c.parent_span_id
  WHERE NOT w.at_run AND w.depth < 256
)
SELECT trace_id, span_id, ancestor, depth, at_run FROM walk;
