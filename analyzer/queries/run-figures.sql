-- @name run_figures
-- @description The figures of METRICS.md for each given run, as `afterstop explain` shows them beside its timeline: cancel latency (§1), cancel depth and what held it at that level (§8: the calls started after C, a model call in flight at C ending past the budget, the slowest tool call in flight at C (an MCP call's joined server handler included), the ghost commits, an MCP call in flight across which the Stop did not cross, or a foreign tool running at C), ghost side effects (§2), orphan tool calls and why each is lost (§3: requested but never run, never ended, a late / dropped / cancelled result, ended after A; repaired), tokens after Stop and how they are known (§4), and the post-cancel error of the next run (§5) with that run, or, for a next run, the cancelled run before it. One row per run; figures of a run not cancelled are NULL or 0. Needs the report's prepare chain.
-- @param runs      VARCHAR[] the runs, by the store's key
-- @returns rows
-- @column run_id            text
-- @column ack_ms            float?
-- @column settle_ms         float?
-- @column depth             int?
-- @column loop_ok           bool?
-- @column model_ok          bool?
-- @column tools_ok          bool?
-- @column effects_ok        bool?
-- @column work_after        int      model and tool calls started at or after C (compensation apart)
-- @column model_over_ms     float?   the latest end of a model call in flight at C, after C
-- @column slow_tool         text?    the tool call in flight at C that ended last (or never)
-- @column slow_tool_ms      float?   its end after C; NULL: it never ended
-- @column tools_at_stop     int      tool calls running at C
-- @column tool_evidence     bool?    afterstop recorded the run's tools
-- @column slow_on_server    bool     the slow tool is an MCP call whose server's handler ended after the call (issue 48)
-- @column mcp_not_propagated int     MCP tools/calls in flight at C across which the Stop did not cross (afterstop.mcp.cancel.via = none)
-- @column mcp_not_propagated_server text? the server of one of them
-- @column ghost_commits     int
-- @column ghost_possible    int
-- @column ghost_inferred    int
-- @column ghost_compensated int
-- @column orphans           int      lost, not repaired
-- @column repaired          int
-- @column late              int
-- @column orphans_requested int      of the orphans: the model asked for the call, nothing ran it
-- @column orphans_unended   int      of the orphans: the call never ended
-- @column orphans_result    int      of the orphans: its result was late, dropped or cancelled, or came after A
-- @column input_after       bigint
-- @column output_after      bigint
-- @column observed_calls    int
-- @column estimated_calls   int
-- @column unknown_calls     int
-- @column started_after     int      model calls started after C
-- @column cost_usd          float
-- @column unpriced_calls    int
-- @column unpriced_input    bigint   their tokens after Stop
-- @column unpriced_output   bigint
-- @column next_run_id       text?    the next run of the conversation, when it failed after this Stop
-- @column error_cause       text?    orphan_tool_call_rejected | other
-- @column error_text        text?
-- @column error_ns          bigint?
-- @column previous_run_id   text?    the cancelled run whose Stop this run's error follows
WITH wanted AS (
  SELECT unnest($runs) AS run_id
),
tools AS (
  SELECT t.run_id,
    count(*) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND (t.end_ns IS NULL OR t.end_ns >= t.c_ns)) AS tools_at_stop,
    -- The slowest tool in flight at C: one that never ended first. An MCP call ends when its joined server's handler
    -- does, if that is later (issue 48).
    arg_max(t.tool_name, CASE WHEN t.end_ns IS NULL THEN 9223372036854775807 ELSE greatest(t.end_ns, coalesce(t.server_end_ns, t.end_ns)) END) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND CASE WHEN t.end_ns IS NULL THEN 9223372036854775807 ELSE greatest(t.end_ns, coalesce(t.server_end_ns, t.end_ns)) END > t.c_ns) AS slow_tool,
    max(CASE WHEN t.end_ns IS NULL THEN 9223372036854775807 ELSE greatest(t.end_ns, coalesce(t.server_end_ns, t.end_ns)) END) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND CASE WHEN t.end_ns IS NULL THEN 9223372036854775807 ELSE greatest(t.end_ns, coalesce(t.server_end_ns, t.end_ns)) END > t.c_ns) AS slow_end_ns,
    arg_max(coalesce(t.server_end_ns > t.end_ns, false), CASE WHEN t.end_ns IS NULL THEN 9223372036854775807 ELSE greatest(t.end_ns, coalesce(t.server_end_ns, t.end_ns)) END) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND CASE WHEN t.end_ns IS NULL THEN 9223372036854775807 ELSE greatest(t.end_ns, coalesce(t.server_end_ns, t.end_ns)) END > t.c_ns) AS slow_on_server,
    -- MCP tools/calls in flight at C across which the Stop did not cross (afterstop.mcp.cancel.via = none).
    count(*) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND (t.end_ns IS NULL OR t.end_ns >= t.c_ns) AND coalesce(t.mcp_cancel_via = 'none', false)) AS mcp_not_propagated,
    arg_max(t.mcp_server, t.start_ns) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND (t.end_ns IS NULL OR t.end_ns >= t.c_ns) AND coalesce(t.mcp_cancel_via = 'none', false)) AS mcp_not_propagated_server,
    any_value(t.c_ns) AS c_ns
  FROM tool_call_facts AS t WHERE t.run_id IN (SELECT run_id FROM wanted)
  GROUP BY t.run_id
),
ghosts AS (
  SELECT run_id,
    count(*) FILTER (WHERE NOT inferred AND possible_kind IS NULL) AS known,
    count(*) FILTER (WHERE possible_kind IS NOT NULL) AS possible,
    count(*) FILTER (WHERE inferred) AS inferred,
    count(*) FILTER (WHERE compensated) AS compensated
  FROM report_ghost_commits WHERE run_id IN (SELECT run_id FROM wanted) GROUP BY run_id
),
outcomes AS (
  SELECT o.run_id,
    count(*) FILTER (WHERE o.lost AND NOT o.repaired) AS orphans,
    count(*) FILTER (WHERE o.lost AND o.repaired) AS repaired,
    count(*) FILTER (WHERE o.late) AS late,
    count(*) FILTER (WHERE o.lost AND NOT o.repaired AND NOT f.executed) AS orphans_requested,
    count(*) FILTER (WHERE o.lost AND NOT o.repaired AND f.executed AND o.end_ns IS NULL) AS orphans_unended,
    count(*) FILTER (WHERE o.lost AND NOT o.repaired AND f.executed AND o.end_ns IS NOT NULL) AS orphans_result
  FROM report_tool_outcomes AS o
  JOIN tool_call_facts AS f ON f.run_id = o.run_id AND f.call_id = o.call_id
  WHERE o.run_id IN (SELECT run_id FROM wanted)
  GROUP BY o.run_id
),
tokens AS (
  SELECT run_id, sum(input_after) AS input_after, sum(output_after) AS output_after,
    count(*) FILTER (WHERE how = 'observed') AS observed_calls, count(*) FILTER (WHERE how = 'estimated') AS estimated_calls,
    count(*) FILTER (WHERE how = 'unknown') AS unknown_calls, count(*) FILTER (WHERE started_after) AS started_after,
    sum(cost_usd) AS cost_usd, count(*) FILTER (WHERE NOT priced AND input_after + output_after > 0) AS unpriced_calls,
    sum(input_after) FILTER (WHERE NOT priced) AS unpriced_input, sum(output_after) FILTER (WHERE NOT priced) AS unpriced_output
  FROM report_tokens WHERE run_id IN (SELECT run_id FROM wanted) GROUP BY run_id
),
next_errors AS (
  SELECT run_id, error_run_id, text, time_ns, cause FROM report_post_cancel_errors WHERE kind = 'next_run'
)
SELECT
  w.run_id, l.ack_ms, l.settle_ms,
  CAST(d.depth AS INTEGER) AS depth, d.loop_ok, d.model_ok, d.tools_ok, d.effects_ok,
  CAST(coalesce(q.work_after, 0) AS INTEGER) AS work_after,
  CASE WHEN q.inflight_model_end_ns IS NOT NULL THEN (q.inflight_model_end_ns - q.c_ns) / 1e6 END AS model_over_ms,
  t.slow_tool,
  CASE WHEN t.slow_end_ns < 9223372036854775807 THEN (t.slow_end_ns - t.c_ns) / 1e6 END AS slow_tool_ms,
  CAST(coalesce(t.tools_at_stop, 0) AS INTEGER) AS tools_at_stop, q.tool_evidence,
  coalesce(t.slow_on_server, false) AS slow_on_server, CAST(coalesce(t.mcp_not_propagated, 0) AS INTEGER) AS mcp_not_propagated, t.mcp_not_propagated_server,
  CAST(coalesce(g.known, 0) AS INTEGER) AS ghost_commits, CAST(coalesce(g.possible, 0) AS INTEGER) AS ghost_possible,
  CAST(coalesce(g.inferred, 0) AS INTEGER) AS ghost_inferred, CAST(coalesce(g.compensated, 0) AS INTEGER) AS ghost_compensated,
  CAST(coalesce(o.orphans, 0) AS INTEGER) AS orphans, CAST(coalesce(o.repaired, 0) AS INTEGER) AS repaired, CAST(coalesce(o.late, 0) AS INTEGER) AS late,
  CAST(coalesce(o.orphans_requested, 0) AS INTEGER) AS orphans_requested, CAST(coalesce(o.orphans_unended, 0) AS INTEGER) AS orphans_unended,
  CAST(coalesce(o.orphans_result, 0) AS INTEGER) AS orphans_result,
  CAST(coalesce(k.input_after, 0) AS BIGINT) AS input_after, CAST(coalesce(k.output_after, 0) AS BIGINT) AS output_after,
  CAST(coalesce(k.observed_calls, 0) AS INTEGER) AS observed_calls, CAST(coalesce(k.estimated_calls, 0) AS INTEGER) AS estimated_calls,
  CAST(coalesce(k.unknown_calls, 0) AS INTEGER) AS unknown_calls, CAST(coalesce(k.started_after, 0) AS INTEGER) AS started_after,
  coalesce(k.cost_usd, 0) AS cost_usd, CAST(coalesce(k.unpriced_calls, 0) AS INTEGER) AS unpriced_calls,
  CAST(coalesce(k.unpriced_input, 0) AS BIGINT) AS unpriced_input, CAST(coalesce(k.unpriced_output, 0) AS BIGINT) AS unpriced_output,
  e.error_run_id AS next_run_id, e.cause AS error_cause, e.text AS error_text, e.time_ns AS error_ns,
  p.run_id AS previous_run_id
FROM wanted AS w
LEFT JOIN report_cancel_latency AS l ON l.run_id = w.run_id
LEFT JOIN report_cancel_depth AS d ON d.run_id = w.run_id
LEFT JOIN cancel_span_facts AS q ON q.run_id = w.run_id
LEFT JOIN tools AS t ON t.run_id = w.run_id
LEFT JOIN ghosts AS g ON g.run_id = w.run_id
LEFT JOIN outcomes AS o ON o.run_id = w.run_id
LEFT JOIN tokens AS k ON k.run_id = w.run_id
LEFT JOIN next_errors AS e ON e.run_id = w.run_id
-- Two cancelled runs whose next run is the same: the later one's Stop is the one its error follows.
LEFT JOIN (
  SELECT e.error_run_id, arg_max(e.run_id, r.start_ns) AS run_id
  FROM next_errors AS e JOIN report_runs AS r ON r.run_id = e.run_id GROUP BY e.error_run_id
) AS p ON p.error_run_id = w.run_id
ORDER BY w.run_id;
