-- Generated from queries/model/prepare-tokens.sql by `npm run queries` (analyzer/sql/): edit that file, not this one.
-- @name prepare_tokens
-- @description Tokens billed after Stop (METRICS.md §4), one row per model call of a cancelled run in the window that ended after C (model-call-facts.sql): whether it started after C (the loop went on), how many input and output tokens after C, how the figure was obtained (observed, estimated, unknown) and what it cost at the price of its model: its exact name, else the longest price-table name it extends by a date or version tag only (gpt-4o-2024-08-06 is gpt-4o; gpt-4o-mini is not: unpriced without its own entry).
-- @param since_ns BIGINT runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT runs that start before this time (NULL: no upper bound)
-- @param version_suffix VARCHAR the pattern (RE2, whole match) of what may follow a listed name: a date or version tag (prices.ts)
-- @returns nothing; creates the temporary table report_tokens (needs report_prices), with each call's run, its group, conversation and C (never NULL: a call is kept for its relation to C, model-call-facts.sql)
CREATE OR REPLACE TEMPORARY TABLE report_tokens AS
-- The calls (model-call-facts.sql) carry their run's group, conversation, start and C: no join to the runs.
WITH calls AS (
  SELECT
    m.run_id, m.service, m.agent, m.framework, m.conversation_id, m.trace_id, m.span_id, m.model,
    m.start_ns, m.end_ns, m.c_ns, m.input_tokens, m.output_tokens, m.output_tokens_after_cancel, m.f_ns
  FROM model_call_facts AS m
  WHERE (($since_ns IS NULL OR m.run_start_ns >= $since_ns) AND ($until_ns IS NULL OR m.run_start_ns < $until_ns)) AND NOT m.cut_step
),
counted AS (
  SELECT
    *,
    CASE
      WHEN start_ns >= c_ns THEN CASE WHEN input_tokens IS NULL AND coalesce(output_tokens, output_tokens_after_cancel) IS NULL THEN 'unknown' ELSE 'observed' END
      WHEN output_tokens_after_cancel IS NOT NULL THEN 'observed'
      WHEN output_tokens IS NOT NULL THEN 'estimated'
      ELSE 'unknown'
    END AS how,
    CASE WHEN start_ns >= c_ns THEN coalesce(input_tokens, 0) ELSE 0 END AS input_after,
    CAST(CASE
      -- Without the provider's usage, the tokens the client counted after C are all of them (afterstop's own count).
      WHEN start_ns >= c_ns THEN coalesce(output_tokens, output_tokens_after_cancel, 0)
      WHEN output_tokens_after_cancel IS NOT NULL THEN output_tokens_after_cancel
      WHEN output_tokens IS NULL OR end_ns <= f_ns THEN 0
      -- linear over the stream, rounded down; 128 bits keep tokens × nanoseconds exact
      ELSE ((CAST(output_tokens AS Int128) * (end_ns - greatest(c_ns, f_ns))) // (end_ns - f_ns))
    END AS BIGINT) AS output_after
  FROM calls
),
-- Each model's price, chosen once per model name (not per call): its exact name first, else the longest
-- listed name it extends by a version tag.
-- (Every kept model name, read from the facts rather than from counted: counted is then read once, so it is not
-- written out as a CTE of its own; a name outside the window only chooses a price nobody joins.)
models AS (
  SELECT DISTINCT model FROM model_call_facts WHERE model IS NOT NULL
),
prices AS (
  SELECT m.model AS called, p.input_usd_per_mtok, p.output_usd_per_mtok,
    row_number() OVER (PARTITION BY m.model ORDER BY CASE WHEN m.model = p.model THEN 1 ELSE 0 END DESC, length(p.model) DESC) AS choice
  FROM models AS m CROSS JOIN report_prices AS p
  WHERE m.model = p.model
    OR (starts_with(m.model, p.model) AND regexp_full_match(substring(m.model, length(p.model) + 1), $version_suffix))
)
SELECT
  c.run_id, c.service, c.agent, c.framework, c.conversation_id, c.c_ns, c.trace_id, c.span_id, coalesce(c.model, '(unknown)') AS model, c.how,
  c.start_ns >= c.c_ns AS started_after, c.input_after, c.output_after,
  p.called IS NOT NULL AS priced,
  coalesce(c.input_after * p.input_usd_per_mtok / 1e6 + c.output_after * p.output_usd_per_mtok / 1e6, 0) AS cost_usd
FROM counted AS c LEFT JOIN (SELECT * FROM prices WHERE choice = 1) AS p ON p.called = c.model
UNION ALL
-- A run stopped during a model call whose span was never exported (model-call-facts.sql): the call is known
-- from the run's model name, its tokens are not (inferred).
SELECT m.run_id, m.service, m.agent, m.framework, m.conversation_id, m.c_ns, m.trace_id, NULL, coalesce(m.model, '(unknown)'), 'unknown', false, 0, 0, false, 0
FROM model_call_facts AS m
WHERE (($since_ns IS NULL OR m.run_start_ns >= $since_ns) AND ($until_ns IS NULL OR m.run_start_ns < $until_ns)) AND m.cut_step;
