-- Generated from queries/model/clock-pair-facts.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name clock_pair_facts
-- @description The clock pairs of the traces just touched (issue 49, METRICS.md §2; DuckDB: touched_traces, inserted into the store's clock_pair_facts at ingest; ClickHouse: every trace read, the session's clock_pair_facts): a client span c and a server span s (kind SERVER) whose parent it is, written by two processes (process_key): an HTTP request (c kind CLIENT: afterstop's request span or the app's HTTP client span, s the service's entry) or an MCP tools/call (c the client's execute_tool span, s the server's side joined to it, role mcp_server). The server's clock minus the client's, δ, obeys δ ≤ s.start − c.start for every pair, and δ ≥ s.start − c.end for an answered one (HTTP: c has a response status; MCP: the client's call got the server's result, afterstop.tool.commit.evidence mcp_result, or ended without ERROR and was not cancelled, neither by its status nor by its result, afterstop.tool.result). Kept with the client span's run (its retention). The report bounds δ per ordered pair of processes from every pair the store keeps (prepare-commit-verdicts.sql).
-- @returns nothing; fills clock_pair_facts
INSERT INTO clock_pair_facts BY NAME
WITH mcp_results AS (
  SELECT trace_id, tool_call_id FROM spans
  WHERE trace_id IN (SELECT trace_id FROM touched_traces) AND name = 'afterstop.tool.commit' AND commit_evidence = 'mcp_result' AND tool_call_id IS NOT NULL
  GROUP BY trace_id, tool_call_id
)
SELECT
  c.run_id, c.trace_id, c.process_key AS client_process, s.process_key AS server_process,
  c.start_ns AS client_start_ns, c.end_ns AS client_end_ns, s.start_ns AS server_start_ns,
  CASE WHEN s.role = 'mcp_server'
       THEN m.tool_call_id IS NOT NULL OR (c.status_code <> 2 AND NOT c.is_cancellation AND coalesce(c.result, '') <> 'cancelled')
       ELSE c.http_status IS NOT NULL END AS answered
FROM spans AS s
JOIN spans AS c ON c.trace_id = s.trace_id AND c.span_id = s.parent_span_id
LEFT JOIN mcp_results AS m ON m.trace_id = c.trace_id AND m.tool_call_id = c.tool_call_id
WHERE s.trace_id IN (SELECT trace_id FROM touched_traces) AND coalesce(s.kind = 2, false)
  AND s.process_key IS NOT NULL AND c.process_key IS NOT NULL AND s.process_key <> c.process_key
  AND (coalesce(c.kind = 3, false) OR (s.role = 'mcp_server' AND c.role = 'tool'));
