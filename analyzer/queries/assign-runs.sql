-- Generated from queries/model/assign-runs.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name assign_runs
-- @description (Over the spans of assign-spans.sql and their walk up the parents, assign-walk.sql, temporary tables of their own.) For the traces just touched (DuckDB: touched_traces, updated in the store's spans; ClickHouse: every trace read, giving the session's report_spans) that hold spans not naming their run: the run of each such span (METRICS.md, introduction): its nearest invoke_agent ancestor; else, in a trace with invoke_agent spans, the trace's first run (a span whose parent was never exported is re-parented to the run); in a trace without any, the trace's root — unless the root is plainly not agent work (an HTTP span without GenAI attributes, a create_agent span), then each agent-like child of it is a run; a trace whose root was never exported holds one run, named after the missing root. A span that is its run's root becomes a run; a model span inside a model span (one call seen by two instrumentations) is not a model call of its own; a foreign invoke_agent span right under an afterstop run span (the run seen by a second instrumentation, such as @ai-sdk/otel) and the spans in it belong to that run as nothing of their own. The server side of an MCP tools/call whose parent chain reaches the client's tool call (the request carried its traceparent) belongs to that call (issue 48): its spans take the call's id and run (and afterstop.mcp.side server), and the server span is the call's far half (role mcp_server), not a tool call of its own; a server span with no client above it, in a trace without run spans, is a run of its own (its root, or its parent never exported). The far side of a tool's request (issue 49: a SERVER span of another process, process_key, under a CLIENT span of the run, and the spans under it of a process other than the client's) is a service's (role service): no run, the id of the tool call it served. Spans that name their run (afterstop.run.id) and invoke_agent spans got their run when read. In DuckDB computed at ingest, so that a report over an unchanged store does not redo it.
-- @returns nothing; sets role, run_id, tool_call_id and mcp_side of the spans
UPDATE spans SET role = assigned.role, run_id = assigned.run_id, tool_call_id = assigned.tool_call_id, mcp_side = assigned.mcp_side
FROM (
WITH
-- A foreign invoke_agent span right under an afterstop run span is that run seen by a second instrumentation
-- (the app's @ai-sdk/otel beside afterstop's AI SDK integration): it and everything in it belong to the
-- afterstop run, as nothing of their own (afterstop's spans hold each call once).
-- (An afterstop run span names its run, or the spans of its run name it: afterstop.run.id is its span id by default.)
named_runs AS (
  SELECT DISTINCT trace_id, attr_run_id AS span_id FROM assign_spans WHERE attr_run_id IS NOT NULL
),
afterstop_runs AS (
  SELECT p.trace_id, p.span_id, coalesce(p.attr_run_id, p.span_id) AS run_id
  FROM assign_spans AS p LEFT JOIN named_runs AS n ON n.trace_id = p.trace_id AND n.span_id = p.span_id
  WHERE p.is_run_span AND (p.attr_run_id IS NOT NULL OR n.span_id IS NOT NULL)
),
mirrors AS (
  SELECT m.trace_id, m.span_id, p.run_id AS mirrored_run_id
  FROM assign_spans AS m JOIN afterstop_runs AS p ON p.trace_id = m.trace_id AND p.span_id = m.parent_span_id
  WHERE m.is_run_span AND m.attr_run_id IS NULL
),
-- The server side of an MCP tools/call (issue 48: a server span whose parent came in the request's
-- params._meta.traceparent) is the far half of the client's tool call it lies under: it and the spans in it (its
-- commit markers, the cancel it received) take that call's id and run, and the server span is not a tool call of
-- its own (role mcp_server). Each span's nearest MCP server span (itself or an ancestor), and that server span's
-- nearest client tool call (a tool span above it that is not a server span).
servers AS (
  SELECT w.trace_id, w.span_id, argMin(w.ancestor, w.depth) AS server_span_id
  FROM assign_walk AS w JOIN assign_spans AS a ON a.trace_id = w.trace_id AND a.span_id = w.ancestor
  WHERE a.is_mcp_server
  GROUP BY w.trace_id, w.span_id
),
clients AS (
  SELECT w.trace_id, w.span_id AS server_span_id,
    argMin(coalesce(a.tool_call_id, a.span_id), w.depth) AS client_call_id,
    argMin(a.attr_run_id, w.depth) AS client_run_id
  FROM assign_walk AS w JOIN assign_spans AS a ON a.trace_id = w.trace_id AND a.span_id = w.ancestor
  WHERE w.depth > 0 AND a.own_role = 'tool' AND NOT a.is_mcp_server
    AND w.span_id IN (SELECT server_span_id FROM servers)
  GROUP BY w.trace_id, w.span_id
),
joined AS (
  SELECT s.trace_id, s.span_id, s.server_span_id, c.client_call_id, c.client_run_id
  FROM servers AS s JOIN clients AS c ON c.trace_id = s.trace_id AND c.server_span_id = s.server_span_id
),
-- A server span with no client call above it in the store (the client was not instrumented, or its spans went
-- elsewhere though it sent a traceparent) in a trace without run spans is a run of its own, whether it is the
-- trace's root or its parent was never exported: the spans in it are that run's.
alone AS (
  SELECT s.trace_id, s.span_id, s.server_span_id
  FROM servers AS s LEFT JOIN clients AS c ON c.trace_id = s.trace_id AND c.server_span_id = s.server_span_id
  WHERE c.server_span_id IS NULL
),
-- The far side of a tool's request (issue 49): a SERVER span of another process whose parent is a CLIENT span of
-- the run (afterstop's request span, or the app's HTTP client span: the request carried its traceparent) is a
-- service's entry, not an MCP server's (those keep role mcp_server); it and the spans under it of a process other
-- than the client's are the service's (role service): no run's own work, so no run (every figure of a run is what it
-- is without them); they keep the id of the tool call whose request they served (the nearest tool span above).
-- (A request span the store lacks, whose id a commit marker names, request_span_id, is such a CLIENT span too: its
-- process the marker's, its call the marker's.)
request_clients AS (
  SELECT trace_id, span_id, process_key, CASE WHEN false THEN tool_call_id END AS marker_call_id FROM assign_spans WHERE coalesce(kind = 3, false)
  UNION ALL
  SELECT m.trace_id, m.request_span_id, any_value(m.process_key), any_value(m.tool_call_id)
  FROM assign_spans AS m LEFT JOIN assign_spans AS r ON r.trace_id = m.trace_id AND r.span_id = m.request_span_id
  WHERE m.request_span_id IS NOT NULL AND r.span_id IS NULL
  GROUP BY m.trace_id, m.request_span_id
),
service_entries AS (
  SELECT e.trace_id, e.span_id, c.process_key AS client_process, c.marker_call_id
  FROM assign_spans AS e JOIN request_clients AS c ON c.trace_id = e.trace_id AND c.span_id = e.parent_span_id
  WHERE coalesce(e.kind = 2, false) AND NOT e.is_mcp_server
    AND e.process_key IS NOT NULL AND c.process_key IS NOT NULL AND e.process_key <> c.process_key
),
service_spans AS (
  SELECT w.trace_id, w.span_id, argMin(w.ancestor, w.depth) AS entry_span_id
  FROM assign_walk AS w
  JOIN service_entries AS e ON e.trace_id = w.trace_id AND e.span_id = w.ancestor
  JOIN assign_spans AS b ON b.trace_id = w.trace_id AND b.span_id = w.span_id
  WHERE b.process_key IS NULL OR b.process_key <> e.client_process
  GROUP BY w.trace_id, w.span_id
),
served_calls AS (
  SELECT w.trace_id, w.span_id AS entry_span_id, argMin(coalesce(a.tool_call_id, a.span_id), w.depth) AS served_call_id
  FROM assign_walk AS w JOIN assign_spans AS a ON a.trace_id = w.trace_id AND a.span_id = w.ancestor
  WHERE w.depth > 0 AND a.own_role = 'tool' AND NOT a.is_mcp_server
    AND w.span_id IN (SELECT span_id FROM service_entries)
  GROUP BY w.trace_id, w.span_id
),
nearest AS (
  SELECT trace_id, span_id,
    argMin(ancestor, depth) FILTER (WHERE at_run) AS run_span_id,
    argMax(ancestor, depth) AS top_id,
    max(depth) AS top_depth
  FROM assign_walk GROUP BY trace_id, span_id
),
-- The span just below the top of each walk (used when the top is not agent work).
below_top AS (
  SELECT w.trace_id, w.span_id, w.ancestor AS below_top_id
  FROM assign_walk AS w JOIN nearest AS n ON n.trace_id = w.trace_id AND n.span_id = w.span_id
  WHERE w.depth + 1 = n.top_depth
),
tops AS (
  SELECT
    b.trace_id, b.span_id, b.start_ns,
    b.parent_span_id IS NOT NULL AS parent_missing,
    -- Plainly not agent work: an HTTP span without GenAI attributes, or a create_agent span.
    (coalesce(b.op_name = 'create_agent', false) OR starts_with(b.name, 'create_agent') OR (b.has_http AND NOT b.agent_like)) AS not_agent_work
  FROM assign_spans AS b JOIN (SELECT DISTINCT trace_id, top_id FROM nearest) AS t ON t.trace_id = b.trace_id AND t.top_id = b.span_id
),
run_ids AS (
  SELECT trace_id, span_id, coalesce(attr_run_id, span_id) AS run_id, start_ns FROM assign_spans WHERE is_run_span
),
traces AS (
  SELECT trace_id, argMin(run_id, start_ns) AS first_run_id FROM run_ids GROUP BY trace_id
),
roots AS (
  -- The run of a trace without invoke_agent spans: its root, when that is agent work.
  SELECT trace_id, argMin(span_id, start_ns) AS root_run_id
  FROM tops WHERE NOT parent_missing AND NOT not_agent_work
  GROUP BY trace_id
),
missing_roots AS (
  -- A trace whose root was never exported: its run is named after the missing parent of its earliest top span.
  SELECT n.trace_id, argMin(b.parent_span_id, b.start_ns) AS missing_root_id
  FROM nearest AS n JOIN assign_spans AS b ON b.trace_id = n.trace_id AND b.span_id = n.top_id
  WHERE b.parent_span_id IS NOT NULL
  GROUP BY n.trace_id
),
looked_up AS (
  SELECT
    b.trace_id, b.span_id, b.parent_span_id, b.own_role, b.attr_run_id, b.is_run_span, b.tool_call_id, b.mcp_side,
    mi.mirrored_run_id IS NOT NULL AS mirrored,
    j.client_call_id, coalesce(j.span_id = j.server_span_id, false) AS joined_server,
    sv.span_id IS NOT NULL AS is_service, coalesce(sc.served_call_id, se.marker_call_id) AS served_call_id,
    coalesce(
      b.attr_run_id,
      mi.mirrored_run_id,
      j.client_run_id,                -- a joined MCP server's spans: the run of the client call
      ri.run_id,
      tr.first_run_id,
      al.server_span_id,              -- an MCP server's call without its client, in a trace without runs
      CASE
        WHEN tr.first_run_id IS NOT NULL THEN NULL
        WHEN tp.parent_missing THEN coalesce(ro.root_run_id, mr.missing_root_id)
        WHEN NOT tp.not_agent_work THEN n.top_id
        ELSE bt.below_top_id   -- below a root that is not agent work: its agent-like child, checked below
      END
    ) AS assigned_run_id,
    (tr.first_run_id IS NULL AND al.server_span_id IS NULL AND NOT coalesce(tp.parent_missing, false) AND coalesce(tp.not_agent_work, false)) AS under_non_agent_root,
    coalesce(bx.agent_like, false) AS below_top_agent_like
  FROM assign_spans AS b
  LEFT JOIN nearest AS n ON n.trace_id = b.trace_id AND n.span_id = b.span_id
  LEFT JOIN run_ids AS ri ON ri.trace_id = n.trace_id AND ri.span_id = n.run_span_id
  LEFT JOIN mirrors AS mi ON mi.trace_id = n.trace_id AND mi.span_id = n.run_span_id
  LEFT JOIN traces AS tr ON tr.trace_id = b.trace_id
  LEFT JOIN tops AS tp ON tp.trace_id = n.trace_id AND tp.span_id = n.top_id
  LEFT JOIN below_top AS bt ON bt.trace_id = b.trace_id AND bt.span_id = b.span_id
  LEFT JOIN missing_roots AS mr ON mr.trace_id = b.trace_id
  LEFT JOIN roots AS ro ON ro.trace_id = b.trace_id
  LEFT JOIN assign_spans AS bx ON bx.trace_id = b.trace_id AND bx.span_id = bt.below_top_id
  LEFT JOIN joined AS j ON j.trace_id = b.trace_id AND j.span_id = b.span_id
  LEFT JOIN alone AS al ON al.trace_id = b.trace_id AND al.span_id = b.span_id
  LEFT JOIN service_spans AS sv ON sv.trace_id = b.trace_id AND sv.span_id = b.span_id
  LEFT JOIN served_calls AS sc ON sc.trace_id = sv.trace_id AND sc.entry_span_id = sv.entry_span_id
  LEFT JOIN service_entries AS se ON se.trace_id = sv.trace_id AND se.span_id = sv.entry_span_id
  WHERE b.attr_run_id IS NULL OR b.is_run_span
)
SELECT
  a.trace_id, a.span_id,
  -- A service's span is the service's even under a mirrored run (a framework's own run span under afterstop's, whose
  -- spans are otherwise 'other': the request of its tool reached the service all the same).
  CASE WHEN a.is_service THEN 'service'
       WHEN a.mirrored THEN 'other'
       WHEN a.assigned_run_id = a.span_id THEN 'run'
       WHEN a.joined_server THEN 'mcp_server'
       -- A model span inside a model span is the same call seen by two instrumentations (an SDK's own
       -- span under afterstop's, OpenLLMetry's under the AI SDK's): it counts once, as the outer one.
       WHEN a.own_role = 'model' AND coalesce(p.own_role = 'model', false) THEN 'other'
       ELSE a.own_role END AS role,
  CASE WHEN a.is_service OR (a.under_non_agent_root AND NOT a.below_top_agent_like) THEN NULL ELSE a.trace_id || ':' || a.assigned_run_id END AS run_id,
  coalesce(a.client_call_id, CASE WHEN a.is_service THEN a.served_call_id END, a.tool_call_id) AS tool_call_id,
  -- The spans in a joined server span are on the server's side too (its tool start marker, its commits: not the
  -- run's loop going on after Stop).
  CASE WHEN a.client_call_id IS NOT NULL AND NOT a.joined_server THEN coalesce(a.mcp_side, 'server') ELSE a.mcp_side END AS mcp_side
FROM looked_up AS a
LEFT JOIN assign_spans AS p ON p.trace_id = a.trace_id AND p.span_id = a.parent_span_id
WHERE (a.attr_run_id IS NULL AND NOT a.is_run_span) OR a.mirrored OR a.is_service
) AS assigned
WHERE spans.trace_id = assigned.trace_id AND spans.span_id = assigned.span_id;
