-- @name run_timeline
-- @description What a run's timeline draws (`afterstop explain`, the HTML report): the model calls, tool calls (an MCP tools/call with its server's side, role mcp_server, joined to it) and afterstop markers of the given runs (report_spans, prepare-spans.sql), in time order, each with what the report concluded of it: a model call's tokens after Stop and how they are known (report_tokens), a tool call's fate in the conversation (report_tool_outcomes: lost, repaired, late), a commit's or an unended tool's ghost kind (report_ghost_commits: known, possible, inferred; compensated) and what decided it (report_commit_verdicts, issue 49: its witness, the witness's verdict, its interval in the agent's clock and the clock bound); and the spans of the services that served the runs' tool calls' requests (role service, drawn under the call they served, their times in the service's clock with the bound of its process and the call's, clock_pair_facts). Needs the report's prepare chain over an open window or one holding the runs.
-- @param runs VARCHAR[] the runs, by the store's key
-- @returns rows
-- @column run_id           text
-- @column span_id          text
-- @column parent_span_id   text?
-- @column name             text
-- @column role             text     model | tool | marker | mcp_server | service
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
-- @column witness          text?    a commit's witness: service, mcp_server
-- @column witness_verdict  text?    happened, failed, received
-- @column earliest_ns      bigint?  a commit's interval in the agent's clock (issue 49)
-- @column latest_ns        bigint?  NULL: open
-- @column d_min_ns         bigint?  the clock bound (service clock − agent clock) of a commit's witness or a service span
-- @column d_max_ns         bigint?
-- @column service          text?    a service span's service (resource service.name)
-- @column process_key      text?    a service span's process
-- @column work             bool?    a service span that is work (database, messaging, an outgoing call)
WITH own AS (
  SELECT * FROM report_spans WHERE run_id IN (SELECT unnest($runs)) AND role IN ('model', 'tool', 'marker', 'mcp_server')
),
-- The services' spans (issue 49: role service, no run) under the runs' tool calls' requests, drawn as the run's,
-- with the clock bound between the call's process and the service's (clock-pair-facts.sql).
served AS (
  SELECT DISTINCT run_id, trace_id, tool_call_id, process_key AS client_process FROM own WHERE role = 'tool' AND tool_call_id IS NOT NULL
),
bounds AS (
  SELECT client_process, server_process, min(server_start_ns - client_start_ns) AS d_max_ns,
    max(server_start_ns - client_end_ns) FILTER (WHERE answered) AS d_min_ns
  FROM clock_pair_facts GROUP BY client_process, server_process
),
services AS (
  SELECT v.* REPLACE (c.run_id AS run_id), b.d_min_ns AS bound_min_ns, b.d_max_ns AS bound_max_ns
  FROM report_spans AS v
  JOIN served AS c ON c.trace_id = v.trace_id AND c.tool_call_id = v.tool_call_id
  LEFT JOIN bounds AS b ON b.client_process = c.client_process AND b.server_process = v.process_key
  WHERE v.role = 'service'
),
s AS (
  -- The call whose outcome a tool span or a tool's start marker shows (NULL for any other span): the join
  -- below on it alone is a hash join; with the condition written into it, DuckDB compared every span of a run with
  -- every call of it (a nested loop: 100,000 calls took 48 s).
  SELECT *, CASE WHEN role = 'tool' OR name = 'afterstop.tool.start' THEN coalesce(tool_call_id, span_id) END AS outcome_call
  FROM (
    SELECT *, CAST(NULL AS BIGINT) AS bound_min_ns, CAST(NULL AS BIGINT) AS bound_max_ns FROM own
    UNION ALL BY NAME
    SELECT * FROM services
  )
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
  v.witness, v.witness_verdict, v.earliest_ns, v.latest_ns,
  coalesce(v.d_min_ns, s.bound_min_ns) AS d_min_ns, coalesce(v.d_max_ns, s.bound_max_ns) AS d_max_ns,
  CASE WHEN s.role = 'service' THEN s.service END AS service,
  CASE WHEN s.role = 'service' THEN s.process_key END AS process_key,
  CASE WHEN s.role = 'service' THEN s.db_system IS NOT NULL OR s.messaging_system IS NOT NULL OR coalesce(s.kind IN (3, 4), false) END AS work
FROM s
LEFT JOIN report_ghost_commits AS g ON g.run_id = s.run_id AND g.span_id = s.span_id
LEFT JOIN report_commit_verdicts AS v ON v.run_id = s.run_id AND v.span_id = s.span_id
LEFT JOIN report_tokens AS t ON t.run_id = s.run_id AND t.span_id = s.span_id
LEFT JOIN outcomes AS o ON o.run_id = s.run_id AND o.call_id = s.outcome_call
ORDER BY s.run_id, s.start_ns, s.end_ns, s.span_id;
