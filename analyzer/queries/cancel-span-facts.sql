-- Generated from queries/model/cancel-span-facts.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name cancel_span_facts
-- @description What the spans of each cancelled run of the traces just touched say about the time around C (DuckDB: touched_traces, inserted into the store's cancel_span_facts at ingest, so that a report over an unchanged store reads them instead of the spans; ClickHouse: every trace read, the session's cancel_span_facts), one row per cancelled run: quiet_end_ns, the latest end of a tool or model span that started before C (cancel latency's S without a settle marker, METRICS.md §1); work_after, the model and tool calls (and tool start markers) starting at or after C, compensations and the server side of a joined MCP call apart (cancel depth level 1, §8); inflight_model_end_ns, the latest end of a model call in flight at C (started before, ended after: level 2 compares it with the budget at report time); tool_evidence, whether afterstop recorded the run's tools (its tool markers, or tool spans of its own tracer, scope afterstop; not those of an MCP server's side joined to it, nor a foreign tool's commit markers: level 4 of a foreign run needs no tool running at C).
-- @returns nothing; fills cancel_span_facts (with the run's service, agent, framework, start run_start_ns, c_ns, a_ns, settle_marker_ns and has_request)
INSERT INTO cancel_span_facts BY NAME
SELECT
  r.run_id, r.trace_id,
  max(s.end_ns) FILTER (WHERE s.role IN ('tool', 'model') AND s.start_ns < r.c_ns) AS quiet_end_ns,
  count(*) FILTER (WHERE (s.role IN ('model', 'tool') OR s.name = 'afterstop.tool.start') AND s.start_ns >= r.c_ns
    AND coalesce(s.tool_kind, '') <> 'compensate'
    -- The server's side of an MCP call joined to the run (issue 48): the call's far half, begun when its request
    -- arrived, not a new call of the loop.
    AND coalesce(s.mcp_side, '') <> 'server') AS work_after,
  max(s.end_ns) FILTER (WHERE s.role = 'model' AND s.start_ns < r.c_ns AND s.end_ns > r.c_ns) AS inflight_model_end_ns,
  -- (Not the markers of an MCP server's side joined to the run, issue 48: they are the server's, not the run's tools.)
  count(*) FILTER (WHERE (s.name IN ('afterstop.tool.start', 'afterstop.tool.commit') OR (s.role = 'tool' AND s.scope = 'afterstop'))
    AND coalesce(s.mcp_side, '') <> 'server'
    -- Nor a foreign tool's commit markers (afterstop.tool.foreign): a foreign run's lost tool span still looks like none.
    AND coalesce(s.tool_foreign, '') <> 'true') > 0 AS tool_evidence,
  -- The run's group, start (the report's window), C, A and settle marker: the report's cancel latency and depth
  -- read this table alone (every cancelled run has a row: a run is known from its spans).
  r.service, r.agent, r.framework, r.start_ns AS run_start_ns, r.c_ns, r.a_ns, r.settle_marker_ns, r.has_request
FROM spans AS s JOIN run_facts AS r ON r.run_id = s.run_id
WHERE s.trace_id IN (SELECT trace_id FROM touched_traces) AND r.cancelled
GROUP BY r.run_id, r.trace_id, r.service, r.agent, r.framework, r.start_ns, r.c_ns, r.a_ns, r.settle_marker_ns, r.has_request;
