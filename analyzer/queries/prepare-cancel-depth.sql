-- Generated from queries/model/prepare-cancel-depth.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_cancel_depth
-- @description Cancel depth (METRICS.md §8) per cancelled run, 0 to 4, one level each, stopping at the first that fails: 1 loop — no model or tool call starts after C, the Stop request (compensation work, afterstop.tool.kind = compensate, is not loop work); 2 model — every model call in flight at C ended within the budget; 3 tools — every tool call in flight at C ended within the budget (one that never ended fails); 4 effects — no ghost commit, known or possible (a request_sent commit after C, a tool call that never ended, a call in flight at C whose effect was out of sight: depth 4 needs evidence) (and, for a foreign run without afterstop's tool markers or tool spans, no tool running at C, whose effect the trace cannot show; a foreign run whose Stop is inferred, without afterstop's cancel request marker and tool evidence, never reaches 4: its trace cannot show that nothing landed; and the run not beside a framework afterstop does not instrument, whose effects it cannot show; and no MCP tools/call in flight at C across which the Stop did not cross, afterstop.mcp.cancel.via = none). An MCP call whose server side is joined (issue 48) ends for level 3 when the later of the call and its server's handler ends. One row per cancelled run.
-- @param since_ns BIGINT runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT runs that start before this time (NULL: no upper bound)
-- @param budget_ns BIGINT the budget (METRICS.md: 1 s = 1000000000)
-- @returns nothing; creates the temporary table report_cancel_depth
CREATE OR REPLACE TEMPORARY TABLE report_cancel_depth AS
-- The cancelled runs with what their spans say around C (cancel-span-facts.sql, which carries the run's group,
-- start and C): no join to the runs.
WITH runs AS (
  SELECT run_id, service, agent, framework, (($since_ns IS NULL OR run_start_ns >= $since_ns) AND ($until_ns IS NULL OR run_start_ns < $until_ns)) AS in_window, c_ns, work_after, inflight_model_end_ns, tool_evidence, has_request
  FROM cancel_span_facts
),
-- The tool calls of cancelled runs (tool-call-facts.sql) carry their run's C: counted per run without joining the runs.
tool_checks AS (
  SELECT t.run_id,
    -- An MCP call whose server side is joined (issue 48) ended when its server's handler did, if that was later.
    count(*) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND (t.end_ns IS NULL OR t.end_ns > t.c_ns OR coalesce(t.server_end_ns > t.c_ns, false))
      AND (t.end_ns IS NULL OR t.end_ns > t.c_ns + $budget_ns OR coalesce(t.server_end_ns > t.c_ns + $budget_ns, false))) AS slow_tools,
    count(*) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND (t.end_ns IS NULL OR t.end_ns >= t.c_ns)) AS tools_at_stop,
    -- MCP tools/calls in flight at C across which the Stop never crossed (afterstop.mcp.cancel.via = none: no
    -- notifications/cancelled, the request stream left open): their server was never told (issue 48).
    count(*) FILTER (WHERE t.executed AND t.start_ns < t.c_ns AND (t.end_ns IS NULL OR t.end_ns >= t.c_ns)
      AND coalesce(t.mcp_cancel_via = 'none', false)) AS mcp_not_propagated
  FROM tool_call_facts AS t
  GROUP BY t.run_id
),
levels AS (
  SELECT
    r.run_id, r.service, r.agent, r.framework, r.in_window,
    -- What the run's spans say around C, kept at ingest (cancel-span-facts.sql).
    coalesce(r.work_after, 0) = 0 AS loop_ok,
    coalesce(r.inflight_model_end_ns <= r.c_ns + $budget_ns, true) AS model_ok,
    coalesce(tc.slow_tools, 0) = 0 AS tools_ok,
    -- A foreign run (afterstop did not record its tools) with a tool running at C cannot show whether its effect
    -- happened: no level 4 without evidence.
    -- A foreign run (no afterstop.cancel.request, no tool evidence of afterstop's: C inferred from the trace) cannot show
    -- that nothing landed after Stop at all (a lost tool span looks like no tool, and the framework's cut steps are often
    -- never exported): its best is 3.
    r.run_id NOT IN (SELECT run_id FROM report_ghost_commits) AND (coalesce(r.tool_evidence, false) OR coalesce(tc.tools_at_stop, 0) = 0)
    -- A Stop that did not cross to an MCP server with a call in flight (issue 48): the server was left to run on.
      AND coalesce(tc.mcp_not_propagated, 0) = 0
      AND (coalesce(r.has_request, false) OR coalesce(r.tool_evidence, false))
    -- A run beside a framework afterstop does not instrument (METRICS.md §11): what that framework did after Stop
    -- is not in the spans, so no level 4 either.
      AND r.run_id NOT IN (SELECT run_id FROM report_runs WHERE uninstrumented IS NOT NULL) AS effects_ok
  FROM runs AS r
  LEFT JOIN tool_checks AS tc ON tc.run_id = r.run_id
)
SELECT *,
  CASE WHEN NOT loop_ok THEN 0 WHEN NOT model_ok THEN 1 WHEN NOT tools_ok THEN 2 WHEN NOT effects_ok THEN 3 ELSE 4 END AS depth
FROM levels;
