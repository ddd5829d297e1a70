-- @name prepare_runs
-- @description The runs (run_facts, kept up to date at ingest), with whether each starts in the report's window. (Runs outside the window stay: the run after a cancelled one may lie outside it.)
-- @param since_ns BIGINT? runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT? runs that start before this time (NULL: no upper bound)
-- @returns nothing; creates the temporary table report_runs
CREATE OR REPLACE TEMPORARY TABLE report_runs AS
SELECT *,
  ($since_ns IS NULL OR start_ns >= $since_ns) AND ($until_ns IS NULL OR start_ns < $until_ns) AS in_window
FROM run_facts;
