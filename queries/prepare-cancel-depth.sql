-- @name prepare_cancel_depth
-- @description Cancel depth (METRICS.md §8) per cancelled run, 0 to 4, one level each, stopping at the first that fails: 1 loop — no model or tool call starts after C, the Stop request (compensation work, afterstop.tool.kind = compensate, is not loop work); 2 model — every model call in flight at C ended within the budget; 3 tools — every tool call in flight at C ended within the budget (one that never ended fails); 4 effects — no ghost commit (and, for a foreign run without tool markers, no tool running at C, whose effect the trace cannot show). One row per cancelled run.
-- @param budget_ns BIGINT  the budget (METRICS.md: 1 s = 1000000000)
-- @returns nothing; creates the temporary table report_cancel_depth
CREATE OR REPLACE TEMP TABLE report_cancel_depth AS
WITH runs AS (SELECT * FROM report_runs WHERE cancelled),
levels AS (
  SELECT
    r.run_id, r.service, r.agent, r.framework,
    NOT EXISTS (
      SELECT 1 FROM report_spans s
      WHERE s.run_id = r.run_id AND (s.role IN ('model', 'tool') OR s.name = 'afterstop.tool.start')
        AND s.start_ns >= r.c_ns AND coalesce(s.tool_kind, '') <> 'compensate'
    ) AS loop_ok,
    NOT EXISTS (
      SELECT 1 FROM report_spans s
      WHERE s.run_id = r.run_id AND s.role = 'model' AND s.start_ns < r.c_ns AND s.end_ns > r.c_ns
        AND s.end_ns > r.c_ns + $budget_ns
    ) AS model_ok,
    NOT EXISTS (
      SELECT 1 FROM report_tool_calls t
      WHERE t.run_id = r.run_id AND t.executed AND t.start_ns < r.c_ns AND (t.end_ns IS NULL OR t.end_ns > r.c_ns)
        AND (t.end_ns IS NULL OR t.end_ns > r.c_ns + $budget_ns)
    ) AS tools_ok,
    NOT EXISTS (SELECT 1 FROM report_ghost_commits g WHERE g.run_id = r.run_id)
    -- A foreign run (no afterstop tool markers) with a tool running at C cannot show whether its effect
    -- happened: no level 4 without evidence.
    AND (EXISTS (SELECT 1 FROM report_spans m WHERE m.run_id = r.run_id AND m.name IN ('afterstop.tool.start', 'afterstop.tool.commit'))
      OR NOT EXISTS (
        SELECT 1 FROM report_tool_calls t
        WHERE t.run_id = r.run_id AND t.executed AND t.start_ns < r.c_ns AND (t.end_ns IS NULL OR t.end_ns >= r.c_ns)
      )) AS effects_ok
  FROM runs r
)
SELECT *,
  CASE WHEN NOT loop_ok THEN 0 WHEN NOT model_ok THEN 1 WHEN NOT tools_ok THEN 2 WHEN NOT effects_ok THEN 3 ELSE 4 END AS depth
FROM levels;
