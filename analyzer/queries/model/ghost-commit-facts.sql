-- @name ghost_commit_facts
-- @description Ghost side effects (METRICS.md §2) of the runs of the traces just touched (DuckDB: touched_traces, inserted into the store's ghost_commit_facts at ingest; ClickHouse: every trace read, the session's ghost_commit_facts), one row each. Known: an afterstop.tool.commit marker of a cancelled run later than C whose evidence shows the effect landed (manual, response), but for one the guard's fence let through as the Stop propagating or cleanup (afterstop.guard.fence.passed: cancel, cleanup), which is not a leak. Possible (the outcome cannot be seen): a commit known only as request_sent whose answer was lost after C (the request reached the service at sent_ns, the answer was lost at time_ns), a tool call that is not read-only, started (afterstop.tool.start) and never ended, with no commit marker (the tool never ended: the process died or hung), and a tool call that is not read-only, in flight at C (started before, ended at or after it), whose effect happened out of afterstop's sight (its span has afterstop.tool.out_of_sight: an MCP tools/call, the MCP server's effect in another process), with no commit marker after C (out_of_sight; its time is the call's end), and a call of a run afterstop recorded the tools of, not read-only, that ended after C with no commit after C kept, whose span counts more commits (afterstop.tool.commit.count, and the requests still unanswered at its end, afterstop.tool.commit.pending) than the store holds markers of, or, without the count, that ran its course after Stop (no cancelled result, no ERROR) with no marker at all, or whose caller stopped waiting for its body, which may have gone on (afterstop.tool.body_detached) (unrecorded: a marker lost to a crash or an export; at its end; a known ghost when its span counts a commit and it started after C; never a compensation). An MCP tools/call whose server side afterstop watched (issue 48: afterstop's server span joined to the call by assign-runs.sql, holding the commits it counts) is judged by the server's commit markers, which are the call's (a server commit after C is known): the client's own evidence of it (request_sent of the tools/call, mcp_result, out_of_sight) is superseded, never counted beside them. A commit marker without a tool call id is of its parent tool span (a foreign execute_tool span's, afterstop.tool.foreign). Inferred: for runs whose tools afterstop did not record (no tool_evidence in cancel_span_facts: foreign traces), a tool span that ended after C without ERROR and without a commit after C its detector saw. Whether a known or possible one was compensated is a compensation anywhere in the store (compensation-facts.sql): prepare-ghost-commits.sql says, at report time.
-- @returns nothing; fills ghost_commit_facts (with the run's service, agent, framework, conversation_id and start, run_start_ns; compensable: a compensation of its tool call id counts; possible_kind: request_sent | unended | out_of_sight | unrecorded for a possible one, else NULL)
@store_insert(ghost_commit_facts)
-- The spans the three kinds read, of the cancelled runs, with C, are ghost_spans (ghost-spans.sql).
WITH RECURSIVE
-- Each with the call it is of (call_key, ghost-spans.sql).
s AS (SELECT * FROM ghost_spans),
-- Tool calls that ended (their execute_tool span was exported) or committed, by run and call id.
finished_calls AS (
  SELECT DISTINCT run_id, tool_call_id FROM s
  WHERE (role = 'tool' OR name = 'afterstop.tool.commit') AND tool_call_id IS NOT NULL
),
-- The commit markers the store holds of each call: all of them (a tool span counting more lost some), and those
-- after C (known, or request_sent: the call is already a ghost, known or possible) but for the fence's passages.
markers AS (
  SELECT run_id, call_key, count(*) AS n, count(*) FILTER (WHERE start_ns > c_ns AND fence_passed IS NULL) AS after_c,
    count(*) FILTER (WHERE NOT client_mcp_evidence) AS server_n
  FROM s
  WHERE name = 'afterstop.tool.commit' AND call_key IS NOT NULL
  GROUP BY run_id, call_key
),
-- The MCP calls whose server side afterstop watched (issue 48): afterstop's server span (afterstop.mcp.side =
-- server) joined to the call (assign-runs.sql: role mcp_server, its markers with the call's id) holds the server's
-- commits, dated where they happened. The client's own evidence of that call (request_sent of the tools/call,
-- mcp_result, out_of_sight) is then superseded: the server's commit after C is a known ghost where the client could
-- only say possible, and none is counted twice. Not when the server span counts more commits than the store holds
-- markers of (a lost export), nor when its own effect went out of its sight (afterstop.tool.out_of_sight on the server
-- span: it passed the work on): then the client's evidence stands.
watched AS (
  SELECT DISTINCT v.run_id, v.call_key
  FROM s AS v LEFT JOIN markers AS m ON m.run_id = v.run_id AND m.call_key = v.call_key
  WHERE v.role = 'mcp_server' AND coalesce(v.mcp_side = 'server', false) AND v.out_of_sight IS NULL
    AND (v.commit_count IS NULL OR v.commit_count + coalesce(v.commit_pending, 0) <= coalesce(m.server_n, 0))
),
-- The far side's witness (issue 49). A service's spans (assign-runs.sql: role service) under a commit's request:
-- its entry spans (kind SERVER, whose parent is the span the request's traceparent named, request_span_id) and the
-- work under each (any depth, of the entry's process): a database or messaging span, or a CLIENT or PRODUCER span.
service_spans AS (
  SELECT trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns, status_code, process_key, service, db_system, messaging_system
  FROM @assigned_spans
  WHERE @touched(trace_id) AND role = 'service'
),
entries AS (
  SELECT e.trace_id, e.span_id, e.parent_span_id AS request_span_id, e.start_ns, e.process_key, e.service
  FROM service_spans AS e
  WHERE coalesce(e.kind = 2, false) AND e.parent_span_id IN (SELECT request_span_id FROM s WHERE request_span_id IS NOT NULL)
),
under AS (
  SELECT trace_id, span_id AS entry_span_id, process_key AS entry_process, span_id, CAST(0 AS BIGINT) AS depth FROM entries
  UNION ALL
  SELECT u.trace_id, u.entry_span_id, u.entry_process, c.span_id, u.depth + 1
  FROM under AS u JOIN service_spans AS c ON c.trace_id = u.trace_id AND c.parent_span_id = u.span_id
  WHERE u.depth < 64
),
work AS (
  SELECT u.trace_id, u.entry_span_id, w.span_id, w.name, w.start_ns, w.end_ns, w.status_code
  FROM under AS u JOIN service_spans AS w ON w.trace_id = u.trace_id AND w.span_id = u.span_id
  WHERE u.depth > 0 AND w.process_key = u.entry_process
    AND (w.db_system IS NOT NULL OR w.messaging_system IS NOT NULL OR coalesce(w.kind IN (3, 4), false))
),
-- Per request: when the service received it (its earliest entry), and its work: all of it, and of the work that
-- ended without ERROR, the first start, the last end and the span that ended last (service clock).
witnesses AS (
  SELECT e.trace_id, e.request_span_id,
    min(e.start_ns) AS received_ns, any_value(e.process_key) AS server_process, any_value(e.service) AS server_service,
    count(w.span_id) AS work, count(w.span_id) FILTER (WHERE w.status_code <> 2) AS work_ok,
    min(w.start_ns) FILTER (WHERE w.status_code <> 2) AS work_start_ns, max(w.end_ns) FILTER (WHERE w.status_code <> 2) AS work_end_ns,
    argMax(w.name, w.end_ns) FILTER (WHERE w.status_code <> 2) AS work_name
  FROM entries AS e
  LEFT JOIN work AS w ON w.trace_id = e.trace_id AND w.entry_span_id = e.span_id
  GROUP BY e.trace_id, e.request_span_id
),
-- The process of each call's client tool span: the agent's clock, against which an MCP server's markers are mapped.
client_processes AS (
  SELECT run_id, call_key, any_value(process_key) AS client_process FROM s WHERE role = 'tool' GROUP BY run_id, call_key
),
-- Each commit marker with what its own evidence says of when the effect happened (the interval rule, METRICS.md
-- §2; in the clock of the process that wrote the marker): response, [marker − round trip, marker] (a marker without
-- the round trip, of an older afterstop: the marker); request_sent, [sent, open); manual, the marker.
commits AS (
  SELECT s.*,
    CASE WHEN s.commit_evidence = 'request_sent' AND s.commit_unanswered_ms IS NOT NULL
         THEN s.start_ns - CAST(@round(s.commit_unanswered_ms * 1e6, 0) AS BIGINT) END AS sent_ns,
    CASE WHEN s.commit_evidence = 'response' AND s.commit_round_trip_ms IS NOT NULL
           THEN s.start_ns - CAST(@round(s.commit_round_trip_ms * 1e6, 0) AS BIGINT)
         WHEN s.commit_evidence = 'request_sent'
           THEN CASE WHEN s.commit_unanswered_ms IS NOT NULL THEN s.start_ns - CAST(@round(s.commit_unanswered_ms * 1e6, 0) AS BIGINT) END
         ELSE s.start_ns END AS own_earliest_ns,
    CASE WHEN s.commit_evidence = 'request_sent' THEN NULL ELSE s.start_ns END AS own_latest_ns,
    -- An MCP server's marker (issue 48, joined to the call): the server's clock, not the agent's.
    coalesce(s.mcp_side = 'server', false) AND s.role = 'marker' AS server_marker
  FROM s
  WHERE s.name = 'afterstop.tool.commit' AND s.fence_passed IS NULL
)
SELECT
  k.run_id, k.trace_id, k.span_id, k.tool_call_id, coalesce(k.tool_name, '(unnamed)') AS tool,
  coalesce(k.effect, 'unknown') AS effect, k.start_ns AS time_ns, k.start_ns - k.c_ns AS after_stop_ns,
  true AS compensable,
  false AS inferred,
  CASE WHEN k.commit_evidence = 'request_sent' THEN 'request_sent' END AS possible_kind,
  k.sent_ns,
  -- The run's group, conversation and start (the report's window): the report reads them without joining the runs.
  k.service, k.agent, k.framework, k.conversation_id, k.run_start_ns,
  -- What prepare-commit-verdicts.sql decides with at report time, with the clock bound between the two processes
  -- (clock-pair-facts.sql): C, the evidence, the marker's own interval (agent clock), and its witness: a service's
  -- spans under its request (service clock), or the MCP server that wrote it (the marker's interval, server clock).
  k.c_ns, coalesce(k.commit_evidence, 'manual') AS evidence,
  CASE WHEN k.server_marker THEN NULL ELSE k.own_earliest_ns END AS earliest_ns,
  CASE WHEN k.server_marker THEN NULL ELSE k.own_latest_ns END AS latest_ns,
  CASE WHEN k.server_marker THEN 'mcp_server' WHEN wi.request_span_id IS NOT NULL THEN 'service' END AS witness,
  CASE WHEN k.server_marker THEN CASE WHEN k.commit_evidence = 'request_sent' THEN 'received' ELSE 'happened' END
       WHEN wi.request_span_id IS NULL THEN NULL
       WHEN wi.work_ok > 0 THEN 'happened'
       WHEN wi.work > 0 THEN 'failed'
       ELSE 'received' END AS witness_verdict,
  CASE WHEN k.server_marker THEN k.own_earliest_ns ELSE wi.received_ns END AS witness_received_ns,
  CASE WHEN k.server_marker THEN k.own_earliest_ns ELSE wi.work_start_ns END AS witness_start_ns,
  CASE WHEN k.server_marker THEN k.own_latest_ns ELSE wi.work_end_ns END AS witness_end_ns,
  CASE WHEN k.server_marker THEN k.span_service ELSE wi.server_service END AS witness_service,
  CASE WHEN k.server_marker THEN coalesce(k.tool_name, k.name) ELSE wi.work_name END AS witness_span,
  CASE WHEN k.server_marker THEN cp.client_process ELSE k.process_key END AS client_process,
  CASE WHEN k.server_marker THEN k.process_key ELSE wi.server_process END AS server_process
FROM commits AS k
LEFT JOIN watched AS w ON w.run_id = k.run_id AND w.call_key = k.call_key
LEFT JOIN witnesses AS wi ON wi.trace_id = k.trace_id AND wi.request_span_id = k.request_span_id
LEFT JOIN client_processes AS cp ON cp.run_id = k.run_id AND cp.call_key = k.call_key
WHERE NOT (k.client_mcp_evidence AND w.run_id IS NOT NULL)
  -- After C; or an MCP server's marker that says its effect happened, written in another process than its client's:
  -- its time is the server's clock, which only the bound relates to C (a request_sent one before C, as any, is none).
  AND (k.start_ns > k.c_ns
    OR (k.server_marker AND coalesce(k.commit_evidence, 'manual') <> 'request_sent' AND k.process_key IS NOT NULL AND cp.client_process IS NOT NULL
      AND k.process_key <> cp.client_process))
UNION ALL
SELECT
  s.run_id, s.trace_id, s.span_id, s.tool_call_id, coalesce(s.tool_name, '(unnamed)'),
  coalesce(s.effect, 'unknown'), s.start_ns, s.start_ns - s.c_ns,
  true,
  false, 'unended', NULL,
  s.service, s.agent, s.framework, s.conversation_id, s.run_start_ns,
  s.c_ns, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM s
LEFT JOIN finished_calls AS f ON f.run_id = s.run_id AND f.tool_call_id = s.tool_call_id
WHERE s.name = 'afterstop.tool.start' AND s.tool_call_id IS NOT NULL
  AND coalesce(s.effect, 'unknown') <> 'read'
  AND f.run_id IS NULL
UNION ALL
SELECT
  s.run_id, s.trace_id, s.span_id, s.tool_call_id, coalesce(s.tool_name, '(unnamed)'),
  coalesce(s.effect, 'unknown'), s.end_ns, s.end_ns - s.c_ns,
  false, true, NULL, NULL,
  s.service, s.agent, s.framework, s.conversation_id, s.run_start_ns,
  s.c_ns, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM s
LEFT JOIN watched AS w ON w.run_id = s.run_id AND w.call_key = s.call_key
LEFT JOIN markers AS m ON m.run_id = s.run_id AND m.call_key = s.call_key
WHERE s.role = 'tool' AND s.end_ns > s.c_ns AND s.status_code <> 2
  -- Runs afterstop recorded the tools of (cancel-span-facts.sql, computed just before) are not foreign.
  AND s.run_id NOT IN (SELECT run_id FROM cancel_span_facts WHERE tool_evidence)
  -- A foreign MCP client's call whose server side afterstop watched: the server's commits say what landed.
  AND w.run_id IS NULL
  -- A foreign tool whose commit after C afterstop's detector saw (afterstop.tool.foreign): known, counted once.
  AND coalesce(m.after_c, 0) = 0
UNION ALL
-- A tool span, not read-only, with no commit after C kept, whose effect the trace does not hold all of:
-- out_of_sight, in flight at C (start < C <= end) with its effect where afterstop could not watch it
-- (afterstop.tool.out_of_sight); unrecorded, of a run afterstop recorded the tools of, ended after C (not a
-- compensation, which runs after Stop by design), whose commits the store does not hold all of: its
-- afterstop.tool.commit.count plus afterstop.tool.commit.pending (requests unanswered at its end, which may have
-- committed after it; one that failed wrote no marker, and counts here too) is more than the markers kept (a
-- crash, a lost export), or, without the count (an older afterstop, a hand-written trace), it ran its course after
-- Stop (no cancelled result, no ERROR) with no marker at all, or its caller stopped waiting for a body that may
-- have gone on (afterstop.tool.body_detached). Possible, at its end; known when its span counts a commit the store
-- lacks and it started after C (every commit it made was after Stop).
SELECT
  s.run_id, s.trace_id, s.span_id, s.tool_call_id, coalesce(s.tool_name, '(unnamed)'),
  coalesce(s.effect, 'unknown'), s.end_ns, s.end_ns - s.c_ns,
  true,
  false,
  CASE WHEN s.out_of_sight IS NOT NULL THEN 'out_of_sight'
       WHEN s.start_ns > s.c_ns AND coalesce(s.commit_count, 0) > coalesce(m.n, 0) THEN NULL
       ELSE 'unrecorded' END,
  NULL,
  s.service, s.agent, s.framework, s.conversation_id, s.run_start_ns,
  s.c_ns, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM s
LEFT JOIN markers AS m ON m.run_id = s.run_id AND m.call_key = s.call_key
LEFT JOIN watched AS w ON w.run_id = s.run_id AND w.call_key = s.call_key
WHERE s.role = 'tool' AND coalesce(s.effect, 'unknown') <> 'read' AND coalesce(m.after_c, 0) = 0
  AND CASE WHEN s.out_of_sight IS NOT NULL THEN s.start_ns < s.c_ns AND s.end_ns >= s.c_ns AND w.run_id IS NULL
           ELSE s.end_ns > s.c_ns AND coalesce(s.tool_kind, 'tool') <> 'compensate'
             AND s.run_id IN (SELECT run_id FROM cancel_span_facts WHERE tool_evidence)
             AND (s.body_detached IS NOT NULL
               OR CASE WHEN s.commit_count IS NOT NULL THEN s.commit_count + coalesce(s.commit_pending, 0) > coalesce(m.n, 0)
                       ELSE coalesce(m.n, 0) = 0 AND coalesce(s.result, '') <> 'cancelled' AND s.status_code <> 2 END) END;
