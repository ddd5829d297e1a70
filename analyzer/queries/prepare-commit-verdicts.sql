-- Generated from queries/model/prepare-commit-verdicts.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_commit_verdicts
-- @description What each ghost commit fact (ghost-commit-facts.sql) comes to at report time (METRICS.md §2, issue 49), with the clock bound of its two processes (report_clock_bounds, prepare-clock-bounds.sql); a service time t is the agent interval [t − δ_max, t − δ_min] (no upper end without δ_min; without a bound, one process or no pair, t as it is). A commit marker's interval: its witness's work, mapped, when the service's work happened (or the MCP server's marker, mapped); else its own (response: [marker − round trip, marker], the start no earlier than the service's receipt, mapped, when the service received it; request_sent: [sent, open); manual: the marker). Verdict: none when the witness's work all failed, or the whole interval is before C; known when the effect is shown to have happened (manual, response, mcp_result, a witness's work) and the whole interval is after C; else possible (possible_kind request_sent, or across_stop: an interval that holds C). The other facts (unended, out_of_sight, unrecorded, inferred) as kept. Compensated: a succeeded afterstop.tool.compensate anywhere in the store names its tool call id (compensation-facts.sql). Confirmed: known, witnessed (its witness's work happened); ruled out: none by its witness where the client's evidence alone said known or possible.
-- @param since_ns BIGINT runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT runs that start before this time (NULL: no upper bound)
-- @returns nothing; creates report_commit_verdicts (DuckDB: a temporary view; ClickHouse: a temporary table): each fact with verdict (known | possible | none), possible_kind, earliest_ns / latest_ns (agent clock; latest NULL: open), the bound d_min_ns / d_max_ns, witness, witness_verdict, confirmed, ruled_out, compensated and in_window
-- @binds variables (a view takes no parameters: each is the session variable <query name>_<parameter>)
CREATE OR REPLACE TEMP VIEW report_commit_verdicts AS
WITH bounded AS (
  SELECT g.*, b.d_min_ns, b.d_max_ns,
    -- A service in another process that no pair bounds (its request's client span lost): no bound at all, so its
    -- work's time decides nothing (its failure still does). An MCP server's markers without a pair are dated as
    -- they are (a server run without its client is stopped by the cancel it received itself: one clock).
    coalesce(g.witness = 'service' AND b.d_max_ns IS NULL AND g.server_process <> g.client_process, false) AS unbounded
  FROM ghost_commit_facts AS g
  LEFT JOIN report_clock_bounds AS b ON b.client_process = g.client_process AND b.server_process = g.server_process
),
mapped AS (
  SELECT g.*,
    CASE WHEN g.unbounded THEN NULL
         WHEN g.d_max_ns IS NULL THEN g.witness_received_ns ELSE g.witness_received_ns - g.d_max_ns END AS received_lo,
    CASE WHEN g.unbounded THEN NULL
         WHEN g.d_max_ns IS NULL THEN g.witness_start_ns ELSE g.witness_start_ns - g.d_max_ns END AS work_lo,
    CASE WHEN g.unbounded THEN NULL
         WHEN g.d_max_ns IS NULL THEN g.witness_end_ns WHEN g.d_min_ns IS NULL THEN NULL ELSE g.witness_end_ns - g.d_min_ns END AS work_hi,
    -- A point in the agent's clock for what the report dates by one time (an MCP server's marker): the bound's midpoint.
    CASE WHEN g.d_max_ns IS NULL THEN g.witness_end_ns
         WHEN g.d_min_ns IS NULL THEN g.witness_end_ns - g.d_max_ns
         ELSE g.witness_end_ns - ((g.d_max_ns + g.d_min_ns) // (CAST(2 AS BIGINT))) END AS work_mid
  FROM bounded AS g
),
intervals AS (
  SELECT m.*,
    CASE WHEN m.witness_verdict = 'happened' THEN m.work_lo
         WHEN m.witness_verdict = 'received' AND m.witness = 'mcp_server' THEN m.work_lo
         WHEN m.witness_verdict = 'received' THEN CASE WHEN m.earliest_ns IS NULL OR m.earliest_ns < m.received_lo THEN m.received_lo ELSE m.earliest_ns END
         ELSE m.earliest_ns END AS lo,
    CASE WHEN m.witness_verdict = 'happened' THEN m.work_hi
         WHEN m.witness = 'mcp_server' THEN NULL
         ELSE m.latest_ns END AS hi,
    coalesce(m.evidence <> 'request_sent' OR m.witness_verdict = 'happened', false) AS happened,
    -- What the client's evidence alone would say: a ghost (known or possible) unless its own interval is before C.
    CASE WHEN m.witness = 'mcp_server' THEN m.time_ns > m.c_ns ELSE m.latest_ns IS NULL OR m.latest_ns >= m.c_ns END AS client_ghost
  FROM mapped AS m
),
decided AS (
  SELECT i.*,
    CASE WHEN i.evidence IS NULL THEN CASE WHEN i.possible_kind IS NULL THEN 'known' ELSE 'possible' END
         WHEN i.witness_verdict = 'failed' THEN 'none'
         WHEN i.happened AND i.lo > i.c_ns THEN 'known'
         WHEN i.hi IS NOT NULL AND i.hi < i.c_ns THEN 'none'
         ELSE 'possible' END AS verdict
  FROM intervals AS i
)
SELECT
  d.run_id, d.trace_id, d.span_id, d.tool_call_id, d.tool, d.effect,
  -- Dated where the effect happened: an MCP server's marker at the bound's midpoint; a known ghost a service's work
  -- confirmed at that work's earliest start on the agent's clock (not at the client's loss of the answer).
  CASE WHEN d.witness = 'mcp_server' THEN d.work_mid WHEN d.witness = 'service' AND d.verdict = 'known' AND d.witness_verdict = 'happened' THEN d.lo ELSE d.time_ns END AS time_ns,
  CASE WHEN d.witness = 'mcp_server' THEN d.work_mid - d.c_ns WHEN d.witness = 'service' AND d.verdict = 'known' AND d.witness_verdict = 'happened' THEN d.lo - d.c_ns ELSE d.after_stop_ns END AS after_stop_ns,
  d.compensable AND coalesce(d.tool_call_id IN (SELECT tool_call_id FROM compensation_facts), false) AS compensated,
  d.inferred,
  CASE WHEN d.verdict <> 'possible' THEN NULL
       WHEN d.evidence IS NULL THEN d.possible_kind
       WHEN d.evidence = 'request_sent' THEN 'request_sent'
       ELSE 'across_stop' END AS possible_kind,
  -- A possible ghost's request reached the service: at the service's receipt (mapped: its earliest) where known.
  CASE WHEN d.witness = 'service' THEN coalesce(d.received_lo, d.sent_ns) ELSE d.sent_ns END AS sent_ns,
  d.verdict, d.evidence, d.c_ns,
  CASE WHEN d.evidence IS NULL THEN NULL ELSE d.lo END AS earliest_ns,
  CASE WHEN d.evidence IS NULL THEN NULL ELSE d.hi END AS latest_ns,
  d.witness, d.witness_verdict, d.witness_service, d.witness_span,
  d.witness_end_ns, d.work_lo AS witness_lo_ns, d.work_hi AS witness_hi_ns,
  d.d_min_ns, d.d_max_ns,
  coalesce(d.verdict = 'known' AND d.witness_verdict = 'happened', false) AS confirmed,
  coalesce(d.verdict = 'none' AND d.witness IS NOT NULL AND d.client_ghost, false) AS ruled_out,
  -- The run's group, conversation and whether it starts in the window, kept with the facts: no join to the runs.
  d.service, d.agent, d.framework, d.conversation_id, ((getvariable('prepare_commit_verdicts_since_ns') IS NULL OR d.run_start_ns >= getvariable('prepare_commit_verdicts_since_ns')) AND (getvariable('prepare_commit_verdicts_until_ns') IS NULL OR d.run_start_ns < getvariable('prepare_commit_verdicts_until_ns'))) AS in_window
FROM decided AS d;
