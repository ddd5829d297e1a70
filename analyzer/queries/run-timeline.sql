-- @name run_timeline
-- @description What a run's timeline draws (`afterstop explain`, the HTML report): the model calls, tool calls (an MCP tools/call with its server's side, role mcp_server, joined to it) and afterstop markers of the given runs (report_spans, prepare-spans.sql), in time order, each with what the report concluded of it: a model call's tokens after Stop and how they are known (report_tokens), a tool call's fate in the conversation (report_tool_outcomes: lost, repaired, late), a commit's or an unended tool's ghost kind (report_ghost_commits: known, possible, inferred; compensated), and a commit's interval on the agent's clock and who witnessed it (report_commit_verdicts, issue 49: its witness, verdict, deciding span and clock bound; a commit the report did not judge, its evidence alone: unanswered_ms, round_trip_ms). Needs the report's prepare chain over an open window or one holding the runs.
-- @param runs VARCHAR[] the runs, by the store's key
-- @returns rows
-- @column run_id           text
-- @column span_id          text
-- @column parent_span_id   text?
-- @column name             text
-- @column role             text     model | tool | marker
-- @column scope            text?
-- @column start_ns         bigint
-- @column end_ns           bigint
-- @column status_code      int      0 unset, 1 ok, 2 error
-- @column is_cancellation  bool
-- @column tool             text?
-- @column call_id          text?
-- @column effect           text?
-- @column tool_kind        text?
-- @column result           text?
-- @column evidence         text?    a commit's evidence: manual, response, request_sent
-- @column model            text?
-- @column input_tokens     bigint?
-- @column output_tokens    bigint?
-- @column ghost            text?    known | possible | inferred
-- @column compensated      bool?
-- @column sent_ns          bigint?  a possible commit's request reached the service then
-- @column tokens_how       text?    observed | estimated | unknown (a model call that ended after C)
-- @column input_after      bigint?
-- @column output_after     bigint?
-- @column cost_usd         float?
-- @column priced           bool?
-- @column lost             bool?    the call's result never reached the conversation
-- @column repaired         bool?
-- @column late             bool?
-- @column mcp_side         text?    an MCP tools/call's side: client (the run's call), server (the server's far half of it, role mcp_server)
-- @column mcp_server       text?
-- @column mcp_request_id   text?
-- @column mcp_cancel_via   text?    how the Stop crossed to the server: notification, stream_closed, none
-- @column mcp_handler      text?    what the server's handler did after the cancel: stopped, finished_after_cancel
-- @column unanswered_ms    float?   a request_sent commit: body sent → answer lost
-- @column round_trip_ms    float?   a response commit: body sent → answer (issue 49)
-- @column request_span_id  text?    the span id the commit's request carried as traceparent: the service spans answering it
-- @column witness          text?    a commit's witness (report_commit_verdicts): service, mcp_server
-- @column witness_verdict  text?    happened, failed, received
-- @column earliest_ns      bigint?  the commit's interval on the agent's clock, as the report decided it
-- @column latest_ns        bigint?  its end; NULL: open
-- @column decided          bool     the report gave the commit's interval (a commit of a cancelled run after its C, or an MCP server's)
-- @column delta_min_ns     bigint?  the clock bound its witness was mapped through (service minus agent clock)
-- @column delta_max_ns     bigint?
-- @column witness_service  text?    the witness's service, and the span that decided it (the last good work span; an MCP server's tool)
-- @column witness_span     text?
-- @column witness_end_ns   bigint?  that span's end, on the witness's own clock
WITH s AS (
  -- The call whose outcome a tool span or a tool's start marker shows (NULL for any other span): the join
  -- below on it alone is a hash join; with the condition written into it, DuckDB compared every span of a run with
  -- every call of it (a nested loop: 100,000 calls took 48 s).
  SELECT *, CASE WHEN role = 'tool' OR name = 'afterstop.tool.start' THEN coalesce(tool_call_id, span_id) END AS outcome_call,
    -- A commit marker's span, for its verdict (NULL for any other span), for the same reason.
    CASE WHEN name = 'afterstop.tool.commit' THEN span_id END AS commit_span
  FROM report_spans
  WHERE run_id IN (SELECT unnest($runs)) AND role IN ('model', 'tool', 'marker', 'mcp_server')
),
outcomes AS (
  -- lost is NULL in report_tool_outcomes for a call without a result attribute that ended in time: not lost.
  SELECT run_id, call_id, coalesce(bool_or(lost), false) AS lost, coalesce(bool_or(repaired), false) AS repaired, coalesce(bool_or(late), false) AS late
  FROM report_tool_outcomes WHERE run_id IN (SELECT unnest($runs)) GROUP BY run_id, call_id
)
SELECT
  s.run_id, s.span_id, s.parent_span_id, s.name, s.role, s.scope, s.start_ns, s.end_ns, CAST(s.status_code AS INTEGER) AS status_code, s.is_cancellation,
  s.tool_name AS tool, s.tool_call_id AS call_id, s.effect, s.tool_kind, s.result, s.commit_evidence AS evidence,
  s.model, s.input_tokens, s.output_tokens,
  CASE WHEN g.span_id IS NULL THEN NULL WHEN g.inferred THEN 'inferred' WHEN g.possible_kind IS NOT NULL THEN 'possible' ELSE 'known' END AS ghost,
  g.compensated, g.sent_ns,
  t.how AS tokens_how, t.input_after, t.output_after, t.cost_usd, t.priced,
  o.lost, o.repaired, o.late,
  CASE WHEN s.role = 'mcp_server' THEN 'server' WHEN s.role = 'tool' AND s.mcp_method IS NOT NULL THEN coalesce(s.mcp_side, 'client') END AS mcp_side,
  s.mcp_server, s.mcp_request_id, s.mcp_cancel_via, s.mcp_handler,
  -- A commit's interval and witness (issue 49): what the store keeps of its request, and what the report concluded.
  s.commit_unanswered_ms AS unanswered_ms, s.commit_round_trip_ms AS round_trip_ms, s.request_span_id,
  v.witness, v.witness_verdict, v.earliest_ns, v.latest_ns, coalesce(v.evidence IS NOT NULL, false) AS decided, v.d_min_ns AS delta_min_ns, v.d_max_ns AS delta_max_ns,
  v.witness_service, v.witness_span, v.witness_end_ns
FROM s
LEFT JOIN report_ghost_commits AS g ON g.run_id = s.run_id AND g.span_id = s.span_id
-- What the report concluded of each commit of a cancelled run, a ruled-out one too (prepare-commit-verdicts.sql).
LEFT JOIN report_commit_verdicts AS v ON v.run_id = s.run_id AND v.span_id = s.commit_span
LEFT JOIN report_tokens AS t ON t.run_id = s.run_id AND t.span_id = s.span_id
LEFT JOIN outcomes AS o ON o.run_id = s.run_id AND o.call_id = s.outcome_call
ORDER BY s.run_id, s.start_ns, s.end_ns, s.span_id;
