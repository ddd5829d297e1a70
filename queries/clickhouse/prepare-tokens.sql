-- @name prepare_tokens
-- @description ClickHouse: report_tokens, as DuckDB's prepare-tokens.sql: the model calls of cancelled runs in the window that ran past C, the tokens they billed after C (observed, estimated linearly over the stream, or unknown) and their cost at the price of the model's exact name, else of the longest listed name it extends by a date or version tag only.
-- @param version_suffix String the pattern (RE2, whole match) of what may follow a listed name (prices.ts)
-- @returns nothing; creates the temporary table report_tokens
CREATE OR REPLACE TEMPORARY TABLE report_tokens ENGINE = Memory AS
WITH calls AS (
  SELECT
    r.run_id AS run_id, r.service AS service, r.agent AS agent, r.framework AS framework, r.trace_id AS trace_id, s.span_id AS span_id, s.model AS model,
    s.start_ns AS start_ns, s.end_ns AS end_ns, r.c_ns AS c_ns, s.input_tokens AS input_tokens, s.output_tokens AS output_tokens,
    s.output_tokens_after_cancel AS output_tokens_after_cancel,
    -- rounded half away from zero, as DuckDB rounds
    s.start_ns + coalesce(toInt64(sign(s.time_to_first_chunk_s) * floor(abs(s.time_to_first_chunk_s * 1e9) + 0.5)), 0) AS f_ns
  FROM report_spans AS s JOIN report_runs AS r ON r.run_id = s.run_id
  WHERE r.in_window AND r.cancelled AND s.role = 'model'
    AND (s.end_ns > r.c_ns OR (r.cancel_inferred AND s.is_cancellation AND s.start_ns < r.c_ns))
),
counted AS (
  SELECT *,
    multiIf(
      start_ns >= c_ns, if(input_tokens IS NULL AND coalesce(output_tokens, output_tokens_after_cancel) IS NULL, 'unknown', 'observed'),
      output_tokens_after_cancel IS NOT NULL, 'observed',
      output_tokens IS NOT NULL, 'estimated',
      'unknown') AS how,
    if(start_ns >= c_ns, coalesce(input_tokens, 0), 0) AS input_after,
    toInt64(multiIf(
      start_ns >= c_ns, coalesce(output_tokens, output_tokens_after_cancel, 0),
      output_tokens_after_cancel IS NOT NULL, output_tokens_after_cancel,
      output_tokens IS NULL OR end_ns <= f_ns, 0,
      intDiv(toInt128(output_tokens) * (end_ns - greatest(c_ns, f_ns)), end_ns - f_ns))) AS output_after
  FROM calls
),
prices AS (
  SELECT c.run_id AS run_id, c.span_id AS span_id,
    argMax(tuple(p.input_usd_per_mtok, p.output_usd_per_mtok), tuple(c.model = p.model, length(p.model))) AS price
  FROM counted AS c CROSS JOIN report_prices AS p
  WHERE c.model = p.model
    OR (startsWith(c.model, p.model) AND match(substring(c.model, length(p.model) + 1), concat('^(?:', {version_suffix:String}, ')$')))
  GROUP BY c.run_id, c.span_id
)
SELECT
  c.run_id AS run_id, c.service AS service, c.agent AS agent, c.framework AS framework, c.trace_id AS trace_id, c.span_id AS span_id,
  coalesce(c.model, '(unknown)') AS model, c.how AS how,
  c.start_ns >= c.c_ns AS started_after, c.input_after AS input_after, c.output_after AS output_after,
  p.run_id IS NOT NULL AS priced,
  coalesce(c.input_after * tupleElement(p.price, 1) / 1e6 + c.output_after * tupleElement(p.price, 2) / 1e6, 0) AS cost_usd
FROM counted AS c LEFT JOIN prices AS p ON p.run_id = c.run_id AND p.span_id = c.span_id
UNION ALL
SELECT r.run_id, r.service, r.agent, r.framework, r.trace_id, NULL, coalesce(any(s.model), '(unknown)'), 'unknown', false, 0, 0, false, 0
FROM report_runs AS r JOIN report_spans AS s ON s.run_id = r.run_id
WHERE r.in_window AND r.cancel_inferred
GROUP BY r.run_id, r.service, r.agent, r.framework, r.trace_id
HAVING count(s.model) > 0 AND (countIf(s.role IN ('model', 'tool')) = 0
  OR (countIf(s.role = 'run' AND s.finish_reason = 'other') > 0
    AND countIf(s.role = 'model' AND (coalesce(s.finish_reason = 'other', false) OR s.is_cancellation)) = 0))
