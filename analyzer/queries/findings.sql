-- Generated from queries/model/findings.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name findings
-- @description What to look at, one row per finding, each pointing at a trace: ghost commits (known, possible: what is known of an effect in flight at Stop whose outcome was not seen, and inferred), orphan tool calls, unacknowledged cancels, tokens billed after Stop, post-cancel and cleanup errors, replay duplicates (not those its idempotency key deduplicated), steering violations and drops, unended runs, orphan processes, the Stop at an MCP boundary (a tools/call in flight at Stop whose server was never told; a server that was told and whose handler finished anyway), and the far side's witness (issue 49: a commit a service's spans confirmed or ruled out, commit_witnessed_by_service, and one whose service work the clock bound leaves on both sides of Stop, commit_inside_clock_bound). Only runs in the window; worst first (severity 1: irreversible effects; then money — tokens after Stop — before the rest of severity 2), then by time.
-- @param limit UBIGINT at most this many rows
-- @returns rows
-- @column kind            text
-- @column severity        int    1 worst
-- @column trace_id        text
-- @column run_id          text
-- @column conversation_id text?
-- @column tool            text?
-- @column time_ns         bigint
-- @column detail          text
-- Tokens billed after Stop, one finding per run: only the first $limit by time can be shown (their order is
-- (C, run), and every one shares its severity and kind), so the text, with its list of models, is made for those.
WITH tokens AS (
  SELECT t.run_id, any_value(t.trace_id) AS trace_id, any_value(t.conversation_id) AS conversation_id,
    any_value(t.c_ns) AS time_ns,
    sum(t.input_after) AS input_after, sum(t.output_after) AS output_after, sum(t.cost_usd) AS cost_usd
  FROM report_tokens AS t
  GROUP BY t.run_id
  HAVING sum(t.input_after) + sum(t.output_after) > 0
  ORDER BY time_ns, t.run_id
  LIMIT $limit
),
token_models AS (
  SELECT m.run_id, CASE WHEN count(m.model) = 0 THEN NULL ELSE array_to_string(list_sort(list_distinct(list(m.model))), ', ') END AS models
  FROM report_tokens AS m
  WHERE m.run_id IN (SELECT run_id FROM tokens)
  GROUP BY m.run_id
),
-- Findings whose rows carry their run's window and conversation (the facts keep them, report_runs has them).
own AS (
  SELECT CASE WHEN g.inferred THEN 'ghost_commit_inferred' WHEN g.possible_kind IS NOT NULL THEN 'possible_ghost_commit' ELSE 'ghost_commit' END AS kind,
    CASE WHEN g.effect IN ('irreversible', 'unknown') AND NOT g.compensated THEN 1 ELSE 3 END AS severity,
    g.trace_id, g.run_id, g.conversation_id, g.tool, g.time_ns,
    g.tool || ' (' || CASE WHEN g.effect = 'unknown' THEN 'effect unknown' ELSE g.effect END || ') ' || CASE
      WHEN g.possible_kind = 'request_sent' THEN 'may have committed after Stop: its request reached the service'
        || CASE WHEN g.sent_ns IS NULL THEN '' ELSE ' ' || CASE WHEN (g.sent_ns - (g.time_ns - g.after_stop_ns)) < 0 THEN printf('%.3f', -(g.sent_ns - (g.time_ns - g.after_stop_ns)) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (g.sent_ns - (g.time_ns - g.after_stop_ns)) / 1e6) || ' ms after Stop' END END
        || ', and its answer was lost ' || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END
      WHEN g.possible_kind = 'across_stop' THEN 'may have committed after Stop: its effect happened '
        || CASE WHEN g.earliest_ns IS NULL THEN 'at a time not known' ELSE 'between ' || CASE WHEN (g.earliest_ns - g.c_ns) < 0 THEN printf('%.3f', -(g.earliest_ns - g.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (g.earliest_ns - g.c_ns) / 1e6) || ' ms after Stop' END END
        || CASE WHEN g.latest_ns IS NULL THEN ' and later' ELSE ' and ' || CASE WHEN (g.latest_ns - g.c_ns) < 0 THEN printf('%.3f', -(g.latest_ns - g.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (g.latest_ns - g.c_ns) / 1e6) || ' ms after Stop' END END
        || CASE WHEN g.witness IS NULL THEN ' (its request was sent before Stop and answered after it)' ELSE ' (as its witness, ' || g.witness || ', shows it in the agent''s clock)' END
      WHEN g.possible_kind = 'unended' THEN 'may have committed after Stop: it started ' || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END
        || ' and never ended (the process died or hung), so its effect is not known'
      WHEN g.possible_kind = 'out_of_sight' THEN 'may have committed after Stop: it was in flight at Stop and its effect happened out of afterstop''s sight (another process, e.g. an MCP server), so whether it landed is not known; it ended '
        || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END
      WHEN g.possible_kind = 'unrecorded' THEN 'may have committed after Stop: it was in flight at Stop and ended '
        || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END || ', and the trace does not hold all of its work (a commit marker lost, a trace without afterstop.tool.commit.count, or a body its framework stopped waiting for), so whether it landed after Stop is not known'
      WHEN g.witness = 'service' AND g.witness_verdict = 'happened' AND NOT g.inferred THEN 'committed ' || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END
        || ' at the earliest, as ' || coalesce(g.witness_service, 'the service') || '''s own spans show it'
      ELSE CASE WHEN g.inferred THEN 'ended without error' ELSE 'committed' END || ' ' || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END
    END || CASE WHEN g.compensated THEN ', compensated' ELSE '' END AS detail
  FROM report_ghost_commits AS g
  WHERE g.in_window
  UNION ALL
  -- The far side's witness (issue 49): a commit a service's own spans decided, known (confirmed) or no ghost (ruled
  -- out), and one its work could not place on either side of Stop within the clock bound.
  SELECT CASE WHEN v.verdict = 'possible' THEN 'commit_inside_clock_bound' ELSE 'commit_witnessed_by_service' END, 3,
    v.trace_id, v.run_id, v.conversation_id, v.tool, coalesce(v.witness_end_ns, v.time_ns),
    v.tool || ' (' || v.effect || ') ' || CASE
      WHEN v.witness_verdict = 'failed' THEN 'ruled out by ' || coalesce(v.witness_service, 'its service') || ': its work under the request failed, so the effect did not happen'
      WHEN v.verdict = 'none' THEN 'ruled out by ' || coalesce(v.witness_service, 'its service') || ': its work (' || coalesce(v.witness_span, '?') || ') ended '
        || CASE WHEN (v.witness_hi_ns - v.c_ns) < 0 THEN printf('%.3f', -(v.witness_hi_ns - v.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (v.witness_hi_ns - v.c_ns) / 1e6) || ' ms after Stop' END || ' at the latest'
      WHEN v.verdict = 'known' THEN 'confirmed by ' || coalesce(v.witness_service, 'its service') || ': its work (' || coalesce(v.witness_span, '?') || ') began '
        || CASE WHEN (v.witness_lo_ns - v.c_ns) < 0 THEN printf('%.3f', -(v.witness_lo_ns - v.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (v.witness_lo_ns - v.c_ns) / 1e6) || ' ms after Stop' END || ' at the earliest'
      ELSE 'witnessed by ' || coalesce(v.witness_service, 'its service') || ': its work (' || coalesce(v.witness_span, '?') || ') lies between '
        || CASE WHEN (v.witness_lo_ns - v.c_ns) < 0 THEN printf('%.3f', -(v.witness_lo_ns - v.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (v.witness_lo_ns - v.c_ns) / 1e6) || ' ms after Stop' END || ' and ' || CASE WHEN v.witness_hi_ns IS NULL THEN 'an open end' ELSE CASE WHEN (v.witness_hi_ns - v.c_ns) < 0 THEN printf('%.3f', -(v.witness_hi_ns - v.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (v.witness_hi_ns - v.c_ns) / 1e6) || ' ms after Stop' END END
        || ' in the agent''s clock, so whether it was after Stop is not decided'
    END
    || CASE WHEN v.witness_verdict = 'failed' THEN ''
            WHEN v.d_max_ns IS NULL THEN ' (one clock: no bound needed)'
            ELSE ' (the service''s clock minus the agent''s: from ' || CASE WHEN v.d_min_ns IS NULL THEN 'unbounded' ELSE printf('%.3f', v.d_min_ns / 1e6) || ' ms' END
              || ' to ' || printf('%.3f', v.d_max_ns / 1e6) || ' ms)' END
  FROM report_commit_verdicts AS v
  WHERE v.in_window AND v.witness = 'service' AND (v.confirmed OR v.ruled_out OR (v.witness_verdict = 'happened' AND v.verdict = 'possible'))
  UNION ALL
  SELECT 'orphan_tool_call', 2, o.trace_id, o.run_id, o.conversation_id, o.tool, coalesce(o.end_ns, o.start_ns),
    o.tool || ' call ' || o.call_id || ': ' || CASE WHEN o.end_ns IS NULL THEN 'never ended' ELSE 'result ' || coalesce(o.result, 'arrived after the run stopped listening') END || ', no history repair'
  FROM report_tool_outcomes AS o WHERE o.in_window AND o.lost AND NOT o.repaired
  UNION ALL
  SELECT 'unacknowledged_cancel', 2, r.trace_id, r.run_id, r.conversation_id, NULL, coalesce(r.c_ns, r.start_ns), 'Stop was requested and the loop never acknowledged it'
  FROM report_runs AS r WHERE r.in_window AND r.has_request AND r.a_ns IS NULL AND coalesce(r.mcp_handler, '') <> 'finished_after_cancel'
  UNION ALL
  -- An MCP server's run without its client (issue 48) whose handler finished after the cancel it received.
  SELECT 'mcp_handler_finished_after_cancel', 2, r.trace_id, r.run_id, r.conversation_id, NULL, coalesce(r.end_ns, r.c_ns),
    'an MCP server''s tools/call (its client not in the store) received the cancel and its handler finished its work anyway'
      || CASE WHEN r.end_ns IS NULL THEN '' ELSE ', ' || CASE WHEN (r.end_ns - r.c_ns) < 0 THEN printf('%.3f', -(r.end_ns - r.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (r.end_ns - r.c_ns) / 1e6) || ' ms after Stop' END END || ': the Stop crossed the boundary and was not honoured'
  FROM report_runs AS r WHERE r.in_window AND r.mcp_handler = 'finished_after_cancel' AND r.cancelled
  UNION ALL
  SELECT 'tokens_after_stop', 2, t.trace_id, t.run_id, t.conversation_id, NULL, t.time_ns,
    t.input_after || ' input and ' || t.output_after || ' output tokens after Stop (' || m.models || '), $' || printf('%.6f', t.cost_usd)
  FROM tokens AS t JOIN token_models AS m ON m.run_id = t.run_id
  UNION ALL
  SELECT 'unended_run', 2, r.trace_id, r.run_id, r.conversation_id, NULL, r.start_ns, 'the run span was never exported (the process hung or died)'
  FROM report_runs AS r WHERE r.in_window AND r.unended
),
-- Findings of facts that keep neither (few rows): joined to their runs once, below.
linked AS (
  SELECT CASE WHEN e.kind = 'cleanup' THEN 'cleanup_error' ELSE 'post_cancel_error' END AS kind, CASE WHEN e.kind = 'cleanup' THEN 3 ELSE 2 END AS severity,
    e.trace_id, e.error_run_id AS run_id, NULL AS tool, e.time_ns,
    CASE WHEN e.kind = 'cleanup' THEN 'error after Stop: ' ELSE e.cause || ' in the next run: ' END || left(e.text, 200) AS detail
  FROM report_post_cancel_errors AS e
  UNION ALL
  SELECT 'replay_duplicate', 1, d.trace_id, d.run_id, d.tool, d.start_ns,
    d.tool || ' committed ' || d.effect_key || ' again (first by run ' || coalesce(substring(d.first_run_id, position(':' IN d.first_run_id) + 1), '?') || ')'
  FROM replay_facts AS d WHERE NOT coalesce(d.deduplicated, false)
  UNION ALL
  SELECT CASE WHEN s.violation THEN 'steer_violation' ELSE 'steer_dropped' END, 3, s.trace_id, s.run_id, NULL, coalesce(s.injected_ns, s.enqueued_ns),
    'steering message ' || s.steer_id || CASE WHEN s.violation THEN ' injected inside a tool batch' ELSE ' never injected' END
  FROM steer_facts AS s WHERE s.violation OR s.dropped
  UNION ALL
  SELECT 'orphan_process', 2, s.trace_id, s.run_id, NULL, s.start_ns, 'child process ' || coalesce(s.pid, '?') || ' outlived its run'
  FROM orphan_process_facts AS s
  UNION ALL
  -- The Stop at an MCP boundary (issue 48): a tools/call in flight at C whose client told its server nothing; a
  -- server that was told and whose handler finished its work anyway.
  SELECT 'mcp_cancel_not_propagated', 2, t.trace_id, t.run_id, t.tool_name, t.c_ns,
    coalesce(t.tool_name, '(unnamed)') || ' call ' || t.call_id || ' (MCP request ' || coalesce(t.mcp_request_id, '?') || ' to '
      || coalesce(t.mcp_server, 'its server') || ') was in flight at Stop and the Stop did not cross to the server: no notifications/cancelled was sent and its request stream was not closed, so the server was left to run the tool'
  FROM tool_call_facts AS t
  WHERE t.executed AND t.start_ns < t.c_ns AND (t.end_ns IS NULL OR t.end_ns >= t.c_ns)
    AND coalesce(t.mcp_cancel_via = 'none', false)
  UNION ALL
  SELECT 'mcp_handler_finished_after_cancel', 2, t.trace_id, t.run_id, t.tool_name, coalesce(t.server_end_ns, t.c_ns),
    coalesce(t.tool_name, '(unnamed)') || ' call ' || t.call_id || ' (MCP request ' || coalesce(t.mcp_request_id, '?') || '): the server '
      || coalesce(t.mcp_server, '') || CASE WHEN t.mcp_server IS NULL THEN '' ELSE ' ' END || 'received the cancel'
      || CASE WHEN t.received_via IS NULL THEN '' ELSE ' (' || t.received_via || ')' END
      || CASE WHEN t.cancel_received_ns IS NULL THEN '' ELSE ' ' || CASE WHEN (t.cancel_received_ns - t.c_ns) < 0 THEN printf('%.3f', -(t.cancel_received_ns - t.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (t.cancel_received_ns - t.c_ns) / 1e6) || ' ms after Stop' END END
      || ' and its handler finished its work anyway' || CASE WHEN t.server_end_ns IS NULL THEN '' ELSE ', ' || CASE WHEN (t.server_end_ns - t.c_ns) < 0 THEN printf('%.3f', -(t.server_end_ns - t.c_ns) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (t.server_end_ns - t.c_ns) / 1e6) || ' ms after Stop' END END
      || ': the Stop crossed the boundary and was not honoured'
  FROM tool_call_facts AS t
  WHERE t.mcp_handler = 'finished_after_cancel'
),
found AS (
  SELECT kind, severity, trace_id, run_id, conversation_id, tool, time_ns, detail FROM own
  UNION ALL
  SELECT l.kind, l.severity, l.trace_id, l.run_id, r.conversation_id, l.tool, coalesce(l.time_ns, r.c_ns, r.start_ns), l.detail
  FROM linked AS l JOIN report_runs AS r ON r.run_id = l.run_id
  WHERE r.in_window
)
SELECT f.kind, f.severity, f.trace_id, f.run_id, f.conversation_id, f.tool, f.time_ns, f.detail
FROM found AS f
ORDER BY f.severity, f.kind = 'tokens_after_stop' DESC, f.time_ns, f.kind, f.run_id, f.tool, f.detail
LIMIT $limit;
