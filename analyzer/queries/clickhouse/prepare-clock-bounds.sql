-- Generated from queries/model/prepare-clock-bounds.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_clock_bounds
-- @description The clock bound of each ordered pair of processes (METRICS.md §2, the clock bound; issue 49), over every clock pair the store keeps (clock-pair-facts.sql): the server's clock minus the client's, δ, lies in [δ_min, δ_max], δ_max = min(server start − client start) over every pair (a server receives a request after its client made it), δ_min = max(server start − client end) over the answered pairs (it received it before its client had the answer; NULL without one). The one bound the report's verdicts (prepare-commit-verdicts.sql) and explain's service lanes (run-service-spans.sql) map a service's times through.
-- @returns nothing; creates report_clock_bounds (DuckDB: a temporary view; ClickHouse: a temporary table): client_process, server_process, d_min_ns, d_max_ns
CREATE OR REPLACE TEMPORARY TABLE report_clock_bounds AS
SELECT client_process, server_process,
  min(server_start_ns - client_start_ns) AS d_max_ns,
  max(server_start_ns - client_end_ns) FILTER (WHERE answered) AS d_min_ns
FROM clock_pair_facts
GROUP BY client_process, server_process
