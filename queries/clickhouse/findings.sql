-- @name findings
-- @description ClickHouse: the findings of the runs in the window (ghost commits, orphan tool calls, unacknowledged cancels, tokens after Stop, post-cancel and cleanup errors, replays, steering, unended runs, orphan processes), most severe first, as DuckDB's findings.sql.
-- @param limit UInt64 at most this many
-- @returns kind, severity, trace_id, run_id, conversation_id, tool, time_ns, detail
WITH found AS (
  SELECT multiIf(g.inferred, 'ghost_commit_inferred', g.possible_kind IS NOT NULL, 'possible_ghost_commit', 'ghost_commit') AS kind,
    if(g.effect IN ('irreversible', 'unknown') AND NOT g.compensated, 1, 3) AS severity,
    g.trace_id AS trace_id, g.run_id AS run_id, g.tool AS tool, g.time_ns AS time_ns,
    -- The words of DuckDB's findings.sql (its stop_offset macro written out: "x ms after Stop", "x ms before Stop").
    concat(g.tool, ' (', g.effect, ') ', multiIf(
      g.possible_kind = 'request_sent', concat('may have committed after Stop: its request reached the service',
        if(g.sent_ns IS NULL, '', concat(' ', if((assumeNotNull(g.sent_ns) - (g.time_ns - g.after_stop_ns)) < 0, concat(printf('%.3f', -(assumeNotNull(g.sent_ns) - (g.time_ns - g.after_stop_ns)) / 1e6), ' ms before Stop'), concat(printf('%.3f', (assumeNotNull(g.sent_ns) - (g.time_ns - g.after_stop_ns)) / 1e6), ' ms after Stop')))),
        ', and its answer was lost ', if((g.after_stop_ns) < 0, concat(printf('%.3f', -(g.after_stop_ns) / 1e6), ' ms before Stop'), concat(printf('%.3f', (g.after_stop_ns) / 1e6), ' ms after Stop'))),
      g.possible_kind = 'unended', concat('may have committed after Stop: it started ', if((g.after_stop_ns) < 0, concat(printf('%.3f', -(g.after_stop_ns) / 1e6), ' ms before Stop'), concat(printf('%.3f', (g.after_stop_ns) / 1e6), ' ms after Stop')),
        ' and never ended (the process died or hung), so its effect is not known'),
      concat(if(g.inferred, 'ended without error', 'committed'), ' ', if((g.after_stop_ns) < 0, concat(printf('%.3f', -(g.after_stop_ns) / 1e6), ' ms before Stop'), concat(printf('%.3f', (g.after_stop_ns) / 1e6), ' ms after Stop')))),
      if(g.compensated, ', compensated', '')) AS detail
  FROM report_ghost_commits AS g
  UNION ALL
  SELECT 'orphan_tool_call', 2, o.trace_id, o.run_id, o.tool, coalesce(o.end_ns, o.start_ns),
    concat(o.tool, ' call ', o.call_id, ': ', if(o.end_ns IS NULL, 'never ended', concat('result ', coalesce(o.result, 'arrived after the run stopped listening'))), ', no history repair')
  FROM report_tool_outcomes AS o WHERE o.lost AND NOT o.repaired
  UNION ALL
  SELECT 'unacknowledged_cancel', 2, r.trace_id, r.run_id, NULL, r.c_ns, 'Stop was requested and the loop never acknowledged it'
  FROM report_runs AS r WHERE r.has_request AND r.a_ns IS NULL
  UNION ALL
  SELECT 'tokens_after_stop', 2, any(t.trace_id), t.run_id, NULL, NULL,
    concat(toString(sum(t.input_after)), ' input and ', toString(sum(t.output_after)), ' output tokens after Stop (',
      arrayStringConcat(arraySort(groupUniqArray(t.model)), ', '), '), $', printf('%.6f', sum(t.cost_usd)))
  FROM report_tokens AS t GROUP BY t.run_id HAVING sum(t.input_after) + sum(t.output_after) > 0
  UNION ALL
  SELECT if(e.kind = 'cleanup', 'cleanup_error', 'post_cancel_error'), if(e.kind = 'cleanup', 3, 2),
    e.trace_id, e.error_run_id, NULL, e.time_ns,
    concat(if(e.kind = 'cleanup', 'error after Stop: ', concat(e.cause, ' in the next run: ')), leftUTF8(e.text, 200))
  FROM report_post_cancel_errors AS e
  UNION ALL
  SELECT 'replay_duplicate', 1, d.trace_id, d.run_id, d.tool, d.start_ns,
    concat(d.tool, ' committed ', d.effect_key, ' again (first by run ', coalesce(substring(d.first_run_id, position(d.first_run_id, ':') + 1), '?'), ')')
  FROM report_replays AS d
  UNION ALL
  SELECT if(s.violation, 'steer_violation', 'steer_dropped'), 3, s.trace_id, s.run_id, NULL, coalesce(s.injected_ns, s.enqueued_ns),
    concat('steering message ', s.steer_id, if(s.violation, ' injected inside a tool batch', ' never injected'))
  FROM report_steers AS s WHERE s.violation OR s.dropped
  UNION ALL
  SELECT 'unended_run', 2, r.trace_id, r.run_id, NULL, r.start_ns, 'the run span was never exported (the process hung or died)'
  FROM report_runs AS r WHERE r.unended
  UNION ALL
  SELECT 'orphan_process', 2, s.trace_id, s.run_id, NULL, s.start_ns, concat('child process ', coalesce(s.pid, '?'), ' outlived its run')
  FROM report_spans AS s WHERE s.name = 'afterstop.process.orphan'
)
SELECT f.kind AS kind, f.severity AS severity, f.trace_id AS trace_id, f.run_id AS run_id, r.conversation_id AS conversation_id, f.tool AS tool,
  coalesce(f.time_ns, r.c_ns, r.start_ns) AS time_ns, f.detail AS detail
FROM found AS f JOIN report_runs AS r ON r.run_id = f.run_id
WHERE r.in_window
ORDER BY f.severity, f.kind = 'tokens_after_stop' DESC, coalesce(f.time_ns, r.c_ns, r.start_ns), f.kind, f.run_id, f.tool, f.detail
LIMIT {limit:UInt64}
