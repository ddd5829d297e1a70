-- @name prepare_runs
-- @description ClickHouse: report_runs, the runs (run-facts.sql) with in_window: the run starts at or after since and before until (NULL: open).
-- @param since_ns Nullable(Int64) the window's start in ns since the epoch
-- @param until_ns Nullable(Int64) the window's end
-- @returns nothing; creates the temporary table report_runs
CREATE OR REPLACE TEMPORARY TABLE report_runs ENGINE = Memory AS
SELECT *,
  ({since_ns:Nullable(Int64)} IS NULL OR start_ns >= {since_ns:Nullable(Int64)}) AND ({until_ns:Nullable(Int64)} IS NULL OR start_ns < {until_ns:Nullable(Int64)}) AS in_window
FROM run_facts
