-- @name prepare_tokens
-- @description Tokens billed after Stop (METRICS.md §4), one row per model call of a cancelled run in the window that ended after C: whether it started after C (the loop went on), how many input and output tokens after C, how the figure was obtained (observed, estimated, unknown) and what it cost at the price of its model: its exact name, else the longest price-table name it extends by a date or version tag only (gpt-4o-2024-08-06 is gpt-4o; gpt-4o-mini is not: unpriced without its own entry).
-- @param version_suffix VARCHAR  the pattern (RE2, whole match) of what may follow a listed name: a date or version tag (prices.ts)
-- @returns nothing; creates the temporary table report_tokens (needs report_prices)
CREATE OR REPLACE TEMP TABLE report_tokens AS
WITH calls AS (
  SELECT
    r.run_id, r.service, r.agent, r.framework, r.trace_id, s.span_id, s.model,
    s.start_ns, s.end_ns, r.c_ns, s.input_tokens, s.output_tokens, s.output_tokens_after_cancel,
    s.start_ns + coalesce(CAST(round(s.time_to_first_chunk_s * 1e9) AS BIGINT), 0) AS f_ns
  FROM report_spans s JOIN report_runs r ON r.run_id = s.run_id
  WHERE r.in_window AND r.cancelled AND s.role = 'model'
    -- An aborted model call of an inferred cancel ended at C by definition (it is the abort evidence): it was in flight.
    AND (s.end_ns > r.c_ns OR (r.cancel_inferred AND s.is_cancellation AND s.start_ns < r.c_ns))
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
    CASE
      -- Without the provider's usage, the tokens the client counted after C are all of them (afterstop's own count).
      WHEN start_ns >= c_ns THEN coalesce(output_tokens, output_tokens_after_cancel, 0)
      WHEN output_tokens_after_cancel IS NOT NULL THEN output_tokens_after_cancel
      WHEN output_tokens IS NULL OR end_ns <= f_ns THEN 0
      -- linear over the stream, rounded down; HUGEINT keeps tokens × nanoseconds exact
      ELSE CAST((output_tokens::HUGEINT * (end_ns - greatest(c_ns, f_ns))) // (end_ns - f_ns) AS BIGINT)
    END AS output_after
  FROM calls
),
priced AS (
  SELECT c.*, (
    SELECT p FROM report_prices p
    WHERE c.model = p.model
      OR (starts_with(c.model, p.model) AND regexp_full_match(substr(c.model, length(p.model) + 1), $version_suffix))
    ORDER BY (c.model = p.model) DESC, length(p.model) DESC LIMIT 1
  ) AS price
  FROM counted c
)
SELECT
  run_id, service, agent, framework, trace_id, span_id, coalesce(model, '(unknown)') AS model, how,
  start_ns >= c_ns AS started_after, input_after, output_after,
  price IS NOT NULL AS priced,
  coalesce(input_after * price.input_usd_per_mtok / 1e6 + output_after * price.output_usd_per_mtok / 1e6, 0) AS cost_usd
FROM priced
UNION ALL
-- A foreign run stopped during a model call whose span was never exported (the AI SDK never ends the step in
-- flight): the call is known from the run's model name, its tokens are not (inferred). It is known so during
-- the first step (no model or tool span at all), or when the root says a step was cut (finish reason "other")
-- and no exported model span is that step. Otherwise, once a tool ran, the step in flight may have finished.
SELECT r.run_id, r.service, r.agent, r.framework, r.trace_id, NULL, coalesce(any_value(s.model), '(unknown)'), 'unknown', false, 0, 0, false, 0
FROM report_runs r JOIN report_spans s ON s.run_id = r.run_id
WHERE r.in_window AND r.cancel_inferred
GROUP BY r.run_id, r.service, r.agent, r.framework, r.trace_id
HAVING count(s.model) > 0 AND (count(*) FILTER (WHERE s.role IN ('model', 'tool')) = 0
  OR (bool_or(s.role = 'run' AND s.finish_reason = 'other')
    AND NOT bool_or(s.role = 'model' AND (coalesce(s.finish_reason = 'other', false) OR s.is_cancellation))));
