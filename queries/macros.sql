-- @name macros
-- @description Helpers for reading OTLP/JSON, created per connection (temporary): ids, kinds, status codes, attribute maps.
-- @returns nothing

-- An OTLP AnyValue as text. intValue arrives as a string or a number; both read as text here.
CREATE OR REPLACE TEMP MACRO otlp_value(v) AS
  coalesce(v.stringValue, v.intValue, v.doubleValue, v.boolValue::VARCHAR, v.arrayValue::VARCHAR, v.kvlistValue::VARCHAR, v.bytesValue);

-- An attribute by key from the lists of keys and values store-files.sql reads (the first value of a repeated key).
CREATE OR REPLACE TEMP MACRO attr(ks, vs, k) AS vs[list_position(ks, k)];

-- Trace and span ids are hex in OTLP/JSON; some writers use base64 (the protobuf JSON mapping).
CREATE OR REPLACE TEMP MACRO otlp_id(id) AS
  CASE
    WHEN id IS NULL OR id = '' THEN NULL
    -- hex ids are 16 or 32 characters; base64 ones 12 or 24 (cheaper to tell by length than by pattern)
    WHEN length(id) IN (16, 32) THEN lower(id)
    ELSE coalesce(try(lower(to_hex(from_base64(id)))), lower(id))
  END;

CREATE OR REPLACE TEMP MACRO otlp_kind(k) AS
  coalesce(TRY_CAST(k AS TINYINT),
    CASE k WHEN 'SPAN_KIND_INTERNAL' THEN 1 WHEN 'SPAN_KIND_SERVER' THEN 2 WHEN 'SPAN_KIND_CLIENT' THEN 3
           WHEN 'SPAN_KIND_PRODUCER' THEN 4 WHEN 'SPAN_KIND_CONSUMER' THEN 5 ELSE 0 END);

CREATE OR REPLACE TEMP MACRO otlp_status(c) AS
  coalesce(TRY_CAST(c AS TINYINT),
    CASE c WHEN 'STATUS_CODE_OK' THEN 1 WHEN 'STATUS_CODE_ERROR' THEN 2 ELSE 0 END);

-- Nearest-rank percentile of a list (METRICS.md): the value at rank ceil(p * n), 1-based.
CREATE OR REPLACE TEMP MACRO nearest_rank(xs, p) AS
  CASE WHEN len(xs) = 0 THEN NULL
       ELSE list_sort(xs)[greatest(1, CAST(ceil(p * len(xs)) AS BIGINT))] END;

-- Is a span a run (invoke_agent)?
CREATE OR REPLACE TEMP MACRO is_run_span(name, op_name) AS
  coalesce(op_name = 'invoke_agent', false) OR starts_with(name, 'invoke_agent');

-- A span's role in the leak model as far as the span alone tells it (assign-runs.sql may make a foreign span a run).
CREATE OR REPLACE TEMP MACRO span_role(name, op_name, oi_kind, traceloop_kind, has_request_model) AS
  CASE
    WHEN is_run_span(name, op_name) THEN 'run'
    WHEN starts_with(name, 'afterstop.') THEN 'marker'
    WHEN coalesce(op_name = 'execute_tool', false) OR starts_with(name, 'execute_tool')
      OR name = 'ai.toolCall'                      -- Vercel AI SDK
      OR coalesce(oi_kind = 'TOOL', false)          -- OpenInference
      OR coalesce(traceloop_kind = 'tool', false) THEN 'tool'  -- OpenLLMetry
    WHEN coalesce(op_name IN ('chat', 'text_completion', 'generate_content'), false)
      OR has_request_model
      OR name IN ('ai.streamText.doStream', 'ai.generateText.doGenerate', 'ai.streamObject.doStream', 'ai.generateObject.doGenerate')
      OR coalesce(oi_kind = 'LLM', false) THEN 'model'
    ELSE 'other'
  END;
