-- @name prepare_cancel_depth
-- @description ClickHouse: report_cancel_depth, as DuckDB's prepare-cancel-depth.sql: each cancelled run's cancel depth (METRICS.md §8): 0 the loop went on after C (compensation work aside), 1 a model call in flight at C ran past the budget, 2 a tool in flight at C did, 3 an effect happened after Stop (or cannot be ruled out), else 4.
-- @param budget_ns Int64 the cancel-depth budget in ns
-- @returns nothing; creates the temporary table report_cancel_depth
CREATE OR REPLACE TEMPORARY TABLE report_cancel_depth ENGINE = Memory AS
WITH runs AS (SELECT run_id, service, agent, framework, c_ns, a_ns FROM report_runs WHERE cancelled),
-- What DuckDB asks with NOT EXISTS, counted per run (ClickHouse cannot correlate these subqueries).
span_checks AS (
  SELECT r.run_id AS run_id,
    countIf((s.role IN ('model', 'tool') OR s.name = 'afterstop.tool.start') AND s.start_ns >= r.c_ns AND coalesce(s.tool_kind, '') <> 'compensate') AS work_after,
    countIf(s.role = 'model' AND s.start_ns < r.c_ns AND s.end_ns > r.c_ns AND s.end_ns > r.c_ns + {budget_ns:Int64}) AS slow_models,
    countIf(s.name IN ('afterstop.tool.start', 'afterstop.tool.commit')) AS tool_markers
  FROM runs AS r JOIN report_spans AS s ON s.run_id = r.run_id
  GROUP BY r.run_id
),
tool_checks AS (
  SELECT r.run_id AS run_id,
    countIf(t.executed AND t.start_ns < r.c_ns AND (t.end_ns IS NULL OR t.end_ns > r.c_ns) AND (t.end_ns IS NULL OR t.end_ns > r.c_ns + {budget_ns:Int64})) AS slow_tools,
    countIf(t.executed AND t.start_ns < r.c_ns AND (t.end_ns IS NULL OR t.end_ns >= r.c_ns)) AS tools_at_stop
  FROM runs AS r JOIN report_tool_calls AS t ON t.run_id = r.run_id
  GROUP BY r.run_id
),
levels AS (
  SELECT
    r.run_id AS run_id, r.service AS service, r.agent AS agent, r.framework AS framework,
    coalesce(sc.work_after, 0) = 0 AS loop_ok,
    coalesce(sc.slow_models, 0) = 0 AS model_ok,
    coalesce(tc.slow_tools, 0) = 0 AS tools_ok,
    -- A foreign run (no afterstop tool markers) with a tool running at C cannot show whether its effect happened: no level 4.
    r.run_id NOT IN (SELECT run_id FROM report_ghost_commits) AND (coalesce(sc.tool_markers, 0) > 0 OR coalesce(tc.tools_at_stop, 0) = 0) AS effects_ok
  FROM runs AS r
  LEFT JOIN span_checks AS sc ON sc.run_id = r.run_id
  LEFT JOIN tool_checks AS tc ON tc.run_id = r.run_id
)
SELECT *,
  multiIf(NOT loop_ok, 0, NOT model_ok, 1, NOT tools_ok, 2, NOT effects_ok, 3, 4) AS depth
FROM levels
