-- @name prepare_tokens
-- @description Tokens billed after Stop (METRICS.md §4), one row per model call of a cancelled run in the window that ended after C (model-call-facts.sql): whether it started after C (the loop went on), how many input and output tokens after C, how the figure was obtained (observed, estimated, unknown) and what it cost at the price of its provider and model on the minute it started (report_prices, load-prices.sql; a call without one is unpriced, its cost 0 and priced false: the reports say how many calls and tokens that is).
-- @param since_ns BIGINT? runs that start at or after this time (NULL: no lower bound)
-- @param until_ns BIGINT? runs that start before this time (NULL: no upper bound)
-- @returns nothing; creates the temporary table report_tokens (needs report_prices), with each call's run, its group, conversation and C (never NULL: a call is kept for its relation to C, model-call-facts.sql)
CREATE OR REPLACE TEMPORARY TABLE report_tokens AS
-- The calls (model-call-facts.sql) carry their run's group, conversation, start and C: no join to the runs.
WITH calls AS (
  SELECT
    m.run_id, m.service, m.agent, m.framework, m.conversation_id, m.trace_id, m.span_id, m.model, m.provider,
    m.start_ns, m.end_ns, m.c_ns, m.input_tokens, m.output_tokens, m.output_tokens_after_cancel, m.f_ns
  FROM model_call_facts AS m
  WHERE @in_window(m.run_start_ns) AND NOT m.cut_step
),
counted AS (
  SELECT
    *,
    -- What its price is looked up by (model-call-price-keys.sql): its provider ('' for none) and the minute it started.
    coalesce(provider, '') AS price_provider, @int_div(start_ns, CAST(60000000000 AS BIGINT)) AS price_minute,
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
      ELSE @int_div(CAST(output_tokens AS Int128) * (end_ns - greatest(c_ns, f_ns)), end_ns - f_ns)
    END AS BIGINT) AS output_after
  FROM calls
)
SELECT
  c.run_id, c.service, c.agent, c.framework, c.conversation_id, c.c_ns, c.trace_id, c.span_id, coalesce(c.model, '(unknown)') AS model, c.how,
  c.start_ns >= c.c_ns AS started_after, c.input_after, c.output_after,
  p.model IS NOT NULL AS priced,
  -- The long-context tier prices the whole call once its input (all of it, not only what came after C) exceeds
  -- the tier's start, as the provider bills it; a call without a usage figure is priced at the base price.
  coalesce(CASE WHEN coalesce(c.input_tokens, 0) > p.tier_above_input_tokens
    THEN c.input_after * p.tier_input_usd_per_mtok / 1e6 + c.output_after * p.tier_output_usd_per_mtok / 1e6
    ELSE c.input_after * p.input_usd_per_mtok / 1e6 + c.output_after * p.output_usd_per_mtok / 1e6 END, 0) AS cost_usd
-- Each call's price: that of its provider, model and minute (load-prices.sql).
FROM counted AS c LEFT JOIN report_prices AS p
  ON p.provider = c.price_provider AND p.model = c.model AND p.minute = c.price_minute
UNION ALL
-- A run stopped during a model call whose span was never exported (model-call-facts.sql): the call is known
-- from the run's model name, its tokens are not (inferred).
SELECT m.run_id, m.service, m.agent, m.framework, m.conversation_id, m.c_ns, m.trace_id, NULL, coalesce(m.model, '(unknown)'), 'unknown', false, 0, 0, false, 0
FROM model_call_facts AS m
WHERE @in_window(m.run_start_ns) AND m.cut_step;
