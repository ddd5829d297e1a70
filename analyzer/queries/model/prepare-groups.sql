-- @name prepare_groups
-- @description The groups (service, agent, framework) of the runs in the window, one row each. An aggregate over a prepared table or facts that carry their run's group (report_tokens, report_tool_outcomes, report_cancel_depth, report_cancel_latency, report_ghost_commits, steer_facts) adds these rows, empty, so that every group gets its row, with zeros where it has nothing, without joining all the runs (at 10,000,000 spans each such join touched 1.3M runs).
-- @returns nothing; creates the temporary table report_groups
CREATE OR REPLACE TEMPORARY TABLE report_groups AS
SELECT DISTINCT service, agent, framework FROM report_runs WHERE in_window;
