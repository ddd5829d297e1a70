-- Generated from queries/model/findings.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name findings
-- @description What to look at, one row per finding, each pointing at a trace: ghost commits (known, possible: what is known of an effect in flight at Stop whose outcome was not seen, and inferred), orphan tool calls, unacknowledged cancels, tokens billed after Stop, post-cancel and cleanup errors, replay duplicates, steering violations and drops, unended runs, orphan processes. Only runs in the window; worst first (severity 1: irreversible effects; then money — tokens after Stop — before the rest of severity 2), then by time.
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
WITH found AS (
  SELECT CASE WHEN g.inferred THEN 'ghost_commit_inferred' WHEN g.possible_kind IS NOT NULL THEN 'possible_ghost_commit' ELSE 'ghost_commit' END AS kind,
    CASE WHEN g.effect IN ('irreversible', 'unknown') AND NOT g.compensated THEN 1 ELSE 3 END AS severity,
    g.trace_id, g.run_id, g.tool, g.time_ns,
    g.tool || ' (' || g.effect || ') ' || CASE
      WHEN g.possible_kind = 'request_sent' THEN 'may have committed after Stop: its request reached the service'
        || CASE WHEN g.sent_ns IS NULL THEN '' ELSE ' ' || CASE WHEN (g.sent_ns - (g.time_ns - g.after_stop_ns)) < 0 THEN printf('%.3f', -(g.sent_ns - (g.time_ns - g.after_stop_ns)) / 1e6) || ' ms before Stop' ELSE printf('%.3f', (g.sent_ns - (g.time_ns - g.after_stop_ns)) / 1e6) || ' ms after Stop' END END
        || ', and its answer was lost ' || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END
      WHEN g.possible_kind = 'unended' THEN 'may have committed after Stop: it started ' || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END
        || ' and never ended (the process died or hung), so its effect is not known'
      ELSE CASE WHEN g.inferred THEN 'ended without error' ELSE 'committed' END || ' ' || CASE WHEN g.after_stop_ns < 0 THEN printf('%.3f', -g.after_stop_ns / 1e6) || ' ms before Stop' ELSE printf('%.3f', g.after_stop_ns / 1e6) || ' ms after Stop' END
    END || CASE WHEN g.compensated THEN ', compensated' ELSE '' END AS detail
  FROM report_ghost_commits AS g
  UNION ALL
  SELECT 'orphan_tool_call', 2, o.trace_id, o.run_id, o.tool, coalesce(o.end_ns, o.start_ns),
    o.tool || ' call ' || o.call_id || ': ' || CASE WHEN o.end_ns IS NULL THEN 'never ended' ELSE 'result ' || coalesce(o.result, 'arrived after the run stopped listening') END || ', no history repair'
  FROM report_tool_outcomes AS o WHERE o.lost AND NOT o.repaired
  UNION ALL
  SELECT 'unacknowledged_cancel', 2, r.trace_id, r.run_id, NULL, r.c_ns, 'Stop was requested and the loop never acknowledged it'
  FROM report_runs AS r WHERE r.has_request AND r.a_ns IS NULL
  UNION ALL
  SELECT 'tokens_after_stop', 2, any_value(t.trace_id), t.run_id, NULL, NULL,
    sum(t.input_after) || ' input and ' || sum(t.output_after) || ' output tokens after Stop (' || CASE WHEN count(t.model) = 0 THEN NULL ELSE array_to_string(list_sort(list_distinct(list(t.model))), ', ') END || '), $' || printf('%.6f', sum(t.cost_usd))
  FROM report_tokens AS t GROUP BY t.run_id HAVING sum(t.input_after) + sum(t.output_after) > 0
  UNION ALL
  SELECT CASE WHEN e.kind = 'cleanup' THEN 'cleanup_error' ELSE 'post_cancel_error' END, CASE WHEN e.kind = 'cleanup' THEN 3 ELSE 2 END,
    e.trace_id, e.error_run_id, NULL, e.time_ns,
    CASE WHEN e.kind = 'cleanup' THEN 'error after Stop: ' ELSE e.cause || ' in the next run: ' END || left(e.text, 200)
  FROM report_post_cancel_errors AS e
  UNION ALL
  SELECT 'replay_duplicate', 1, d.trace_id, d.run_id, d.tool, d.start_ns,
    d.tool || ' committed ' || d.effect_key || ' again (first by run ' || coalesce(substring(d.first_run_id, position(':' IN d.first_run_id) + 1), '?') || ')'
  FROM replay_facts AS d
  UNION ALL
  SELECT CASE WHEN s.violation THEN 'steer_violation' ELSE 'steer_dropped' END, 3, s.trace_id, s.run_id, NULL, coalesce(s.injected_ns, s.enqueued_ns),
    'steering message ' || s.steer_id || CASE WHEN s.violation THEN ' injected inside a tool batch' ELSE ' never injected' END
  FROM steer_facts AS s WHERE s.violation OR s.dropped
  UNION ALL
  SELECT 'unended_run', 2, r.trace_id, r.run_id, NULL, r.start_ns, 'the run span was never exported (the process hung or died)'
  FROM report_runs AS r WHERE r.unended
  UNION ALL
  SELECT 'orphan_process', 2, s.trace_id, s.run_id, NULL, s.start_ns, 'child process ' || coalesce(s.pid, '?') || ' outlived its run'
  FROM orphan_process_facts AS s
)
SELECT f.kind, f.severity, f.trace_id, f.run_id, r.conversation_id, f.tool, coalesce(f.time_ns, r.c_ns, r.start_ns) AS time_ns, f.detail
FROM found AS f JOIN report_runs AS r ON r.run_id = f.run_id
WHERE r.in_window
ORDER BY f.severity, f.kind = 'tokens_after_stop' DESC, coalesce(f.time_ns, r.c_ns, r.start_ns), f.kind, f.run_id, f.tool, f.detail
LIMIT $limit;
