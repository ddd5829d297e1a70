-- @name assign_runs
-- @description ClickHouse: report_spans, the spans (spans.sql) with the run of each span that does not name its run, as DuckDB's assign-runs.sql gives it (METRICS.md, introduction): its nearest invoke_agent ancestor; else, in a trace with invoke_agent spans, the trace's first run; in a trace without any, the trace's root — unless the root is plainly not agent work (an HTTP span without GenAI attributes, a create_agent span), then each agent-like child of it is a run; a trace whose root was never exported holds one run, named after the missing root. A model span inside a model span is not a model call of its own; a foreign invoke_agent span right under an afterstop run span and the spans in it belong to that run as nothing of their own.
-- @returns nothing; creates the temporary table report_spans
CREATE OR REPLACE TEMPORARY TABLE report_spans ENGINE = Memory AS
WITH RECURSIVE
base AS (
  SELECT trace_id, span_id, parent_span_id, name, start_ns, attr_run_id, op_name, oi_kind, traceloop_kind, has_request_model,
    has_http, agent_like, is_run_span, role
  FROM spans
  WHERE trace_id IN (SELECT trace_id FROM spans WHERE attr_run_id IS NULL AND (NOT is_run_span OR parent_span_id IS NOT NULL))
),
-- A foreign invoke_agent span right under an afterstop run span: that run seen by a second instrumentation (DuckDB's assign-runs.sql).
named_runs AS (
  SELECT DISTINCT trace_id, attr_run_id AS span_id FROM base WHERE attr_run_id IS NOT NULL
),
afterstop_runs AS (
  SELECT p.trace_id AS trace_id, p.span_id AS span_id, coalesce(p.attr_run_id, p.span_id) AS run_id
  FROM base AS p
  WHERE p.is_run_span AND (p.attr_run_id IS NOT NULL OR (p.trace_id, p.span_id) IN (SELECT trace_id, span_id FROM named_runs))
),
mirrors AS (
  SELECT m.trace_id AS trace_id, m.span_id AS span_id, p.run_id AS mirrored_run_id
  FROM base AS m JOIN afterstop_runs AS p ON p.trace_id = m.trace_id AND p.span_id = m.parent_span_id
  WHERE m.is_run_span AND m.attr_run_id IS NULL
),
walk AS (
  SELECT trace_id, span_id, span_id AS ancestor, toUInt32(0) AS depth, coalesce(is_run_span, false) AS at_run
  FROM base WHERE attr_run_id IS NULL OR is_run_span
  UNION ALL
  SELECT w.trace_id, w.span_id, p.span_id, w.depth + 1, coalesce(p.is_run_span, false)
  FROM walk AS w
  JOIN base AS c ON c.trace_id = w.trace_id AND c.span_id = w.ancestor
  JOIN base AS p ON p.trace_id = c.trace_id AND p.span_id = c.parent_span_id
  WHERE NOT w.at_run AND w.depth < 256
),
nearest AS (
  SELECT trace_id, span_id,
    argMinIf(ancestor, depth, at_run) AS run_span_id_raw,
    countIf(at_run) > 0 AS has_run_ancestor,
    argMax(ancestor, depth) AS top_id,
    max(depth) AS top_depth
  FROM walk GROUP BY trace_id, span_id
),
below_top AS (
  SELECT w.trace_id, w.span_id, w.ancestor AS below_top_id
  FROM walk AS w JOIN nearest AS n ON n.trace_id = w.trace_id AND n.span_id = w.span_id
  WHERE w.depth + 1 = n.top_depth
),
tops AS (
  SELECT b.trace_id, b.span_id, b.start_ns,
    b.parent_span_id IS NOT NULL AS parent_missing,
    (coalesce(b.op_name = 'create_agent', false) OR startsWith(b.name, 'create_agent') OR (b.has_http AND NOT b.agent_like)) AS not_agent_work
  FROM base AS b
  WHERE (b.trace_id, b.span_id) IN (SELECT trace_id, top_id FROM nearest)
),
run_ids AS (
  SELECT trace_id, span_id, coalesce(attr_run_id, span_id) AS run_id, start_ns FROM base WHERE is_run_span
),
traces AS (
  SELECT trace_id, argMin(run_id, start_ns) AS first_run_id FROM run_ids GROUP BY trace_id
),
roots AS (
  SELECT trace_id, argMin(span_id, start_ns) AS root_run_id
  FROM tops WHERE NOT parent_missing AND NOT not_agent_work
  GROUP BY trace_id
),
missing_roots AS (
  SELECT n.trace_id, argMin(b.parent_span_id, b.start_ns) AS missing_root_id
  FROM nearest AS n JOIN base AS b ON b.trace_id = n.trace_id AND b.span_id = n.top_id
  WHERE b.parent_span_id IS NOT NULL
  GROUP BY n.trace_id
),
looked_up AS (
  SELECT
    b.trace_id AS trace_id, b.span_id AS span_id, b.parent_span_id AS parent_span_id, b.name AS name, b.op_name AS op_name,
    b.oi_kind AS oi_kind, b.traceloop_kind AS traceloop_kind, b.has_request_model AS has_request_model,
    b.attr_run_id AS attr_run_id, b.is_run_span AS is_run_span,
    mi.span_id IS NOT NULL AS mirrored,
    coalesce(
      b.attr_run_id,
      mi.mirrored_run_id,
      if(n.has_run_ancestor, ri.run_id, NULL),
      tr.first_run_id,
      multiIf(
        tr.first_run_id IS NOT NULL, NULL,
        tp.parent_missing, coalesce(ro.root_run_id, mr.missing_root_id),
        NOT tp.not_agent_work, n.top_id,
        bt.below_top_id)
    ) AS assigned_run_id,
    (tr.first_run_id IS NULL AND NOT coalesce(tp.parent_missing, false) AND coalesce(tp.not_agent_work, false)) AS under_non_agent_root,
    coalesce(bx.agent_like, false) AS below_top_agent_like
  FROM base AS b
  LEFT JOIN nearest AS n ON n.trace_id = b.trace_id AND n.span_id = b.span_id
  LEFT JOIN run_ids AS ri ON ri.trace_id = n.trace_id AND ri.span_id = n.run_span_id_raw
  LEFT JOIN mirrors AS mi ON mi.trace_id = n.trace_id AND mi.span_id = n.run_span_id_raw AND n.has_run_ancestor
  LEFT JOIN traces AS tr ON tr.trace_id = b.trace_id
  LEFT JOIN tops AS tp ON tp.trace_id = n.trace_id AND tp.span_id = n.top_id
  LEFT JOIN below_top AS bt ON bt.trace_id = b.trace_id AND bt.span_id = b.span_id
  LEFT JOIN missing_roots AS mr ON mr.trace_id = b.trace_id
  LEFT JOIN roots AS ro ON ro.trace_id = b.trace_id
  LEFT JOIN base AS bx ON bx.trace_id = b.trace_id AND bx.span_id = bt.below_top_id
  WHERE b.attr_run_id IS NULL OR b.is_run_span
),
role_of AS (
  -- The role each span has as far as the span alone tells it (spans.sql).
  SELECT trace_id, span_id, role FROM base
),
assigned AS (
  SELECT
    a.trace_id AS trace_id, a.span_id AS span_id,
    multiIf(
      a.mirrored, 'other',
      a.assigned_run_id = a.span_id, 'run',
      r.role = 'model' AND coalesce(pr.role = 'model', false), 'other',
      r.role) AS new_role,
    if(a.under_non_agent_root AND NOT a.below_top_agent_like, NULL, concat(a.trace_id, ':', a.assigned_run_id)) AS new_run_id
  FROM looked_up AS a
  JOIN role_of AS r ON r.trace_id = a.trace_id AND r.span_id = a.span_id
  LEFT JOIN role_of AS pr ON pr.trace_id = a.trace_id AND pr.span_id = a.parent_span_id
  WHERE (a.attr_run_id IS NULL AND NOT a.is_run_span) OR a.mirrored
)
SELECT s.* REPLACE (
    if(g.span_id IS NOT NULL, g.new_role, s.role) AS role,
    if(g.span_id IS NOT NULL, g.new_run_id, s.run_id) AS run_id)
FROM spans AS s
LEFT JOIN assigned AS g ON g.trace_id = s.trace_id AND g.span_id = s.span_id
