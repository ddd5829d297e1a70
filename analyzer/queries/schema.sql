-- @name schema
-- @description The store's tables: the Parquet files that hold the spans (span_files), the spans of an ingest while it runs, the facts of every run, of its tool calls and ghost commits, the compensations, the files already read, the lines that could not be read.
-- @returns nothing; creates what is missing, changes nothing that exists
-- A change here is a new STORE_VERSION (analyzer/store.ts): a store of this version does not run it again, and
-- test/analyzer/store.test.ts fails until the version is bumped.

-- The store's spans live in Parquet files partitioned by day and service (store.ts): these are the live ones.
CREATE TABLE IF NOT EXISTS span_files (
  path          VARCHAR PRIMARY KEY,     -- relative to the store's folder
  day           DATE NOT NULL,           -- of the spans' start (UTC)
  spans         BIGINT NOT NULL,
  max_ingest_id INTEGER NOT NULL
);

-- While an ingest runs: its spans and those of the days it touches (read back from span_files), which are
-- written back to Parquet when it ends. Empty between ingests.
CREATE TABLE IF NOT EXISTS spans (
  -- NULL only while an ingest runs, for a span that lacks them: it is counted as skipped and removed.
  trace_id        VARCHAR,
  span_id         VARCHAR,
  parent_span_id  VARCHAR,               -- NULL for a root span
  name            VARCHAR NOT NULL,
  kind            TINYINT,               -- OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer
  start_ns        BIGINT,                -- nanoseconds since the epoch
  end_ns          BIGINT,
  status_code     TINYINT NOT NULL,      -- 0 unset, 1 ok, 2 error
  status_message  VARCHAR,
  service         VARCHAR,               -- resource service.name
  process_key     VARCHAR,               -- the process that wrote it (resource service.instance.id, else host/pid, else service.name; fragments.sql)
  scope           VARCHAR,               -- instrumentation scope name
  file            VARCHAR,               -- the file it was first read from
  ingest_id       INTEGER NOT NULL,      -- the ingest that stored it (next-ingest-id.sql)
  -- What the leak model reads, taken out of the attributes when the span is stored (store-files.sql:
  -- afterstop, GenAI current and deprecated, Vercel AI SDK, OpenInference, OpenLLMetry keys).
  -- The store keeps these, not every attribute: the trace files stay the record.
  attr_run_id     VARCHAR,               -- afterstop.run.id
  op_name         VARCHAR,               -- gen_ai.operation.name
  framework       VARCHAR,               -- afterstop.framework, else the convention that wrote the span
  conversation_id VARCHAR,
  agent_name      VARCHAR,
  uninstrumented  VARCHAR,               -- afterstop.run.uninstrumented, or the uninstrumented framework that wrote it
  function_id     VARCHAR,               -- ai.telemetry.functionId
  tool_name       VARCHAR,
  tool_call_id    VARCHAR,
  model           VARCHAR,
  provider        VARCHAR,               -- gen_ai.provider.name, else gen_ai.system, ai.model.provider, llm.provider
  has_request_model BOOLEAN NOT NULL DEFAULT false,  -- has gen_ai.request.model
  input_tokens    BIGINT,
  output_tokens   BIGINT,
  output_tokens_streamed BIGINT,
  output_tokens_after_cancel BIGINT,
  time_to_first_chunk_s DOUBLE,
  outcome         VARCHAR,               -- afterstop.run.outcome
  finish_reason   VARCHAR,               -- ai.response.finishReason
  effect          VARCHAR,
  tool_kind       VARCHAR,               -- afterstop.tool.kind: step for a framework step (never an orphan)
  out_of_sight    VARCHAR,               -- afterstop.tool.out_of_sight: its effect happened where afterstop could not watch it (mcp)
  result          VARCHAR,
  idempotency_key VARCHAR,
  steer_id        VARCHAR,
  steer_position  VARCHAR,
  repair_call_ids VARCHAR[],
  compensation_outcome VARCHAR,
  commit_evidence VARCHAR,               -- afterstop.tool.commit.evidence: manual, response, request_sent
  commit_unanswered_ms DOUBLE,           -- afterstop.tool.commit.unanswered_ms (request_sent: body sent → answer lost)
  commit_count    BIGINT,                -- afterstop.tool.commit.count: the commit markers the call wrote before its span ended
  commit_pending  BIGINT,                -- afterstop.tool.commit.pending: its mutating requests unanswered at its end
  body_detached   VARCHAR,               -- afterstop.tool.body_detached: the caller stopped waiting for the body, which may go on
  guard_key       VARCHAR,               -- afterstop.guard.idempotency_key: the key a commit's request carried (the guard)
  fence_passed    VARCHAR,               -- afterstop.guard.fence.passed: a commit after Stop the fence let through (cancel, cleanup)
  cancel_source   VARCHAR,               -- afterstop.cancel.source
  pid             VARCHAR,
  mcp_method      VARCHAR,               -- mcp.method.name (tools/call)
  mcp_request_id  VARCHAR,               -- jsonrpc.request.id
  mcp_side        VARCHAR,               -- afterstop.mcp.side: client | server
  mcp_server      VARCHAR,               -- afterstop.mcp.server: the server's name (never arguments)
  mcp_cancel_via  VARCHAR,               -- afterstop.mcp.cancel.via: how a cancel crossed (notification, stream_closed, none)
  mcp_handler     VARCHAR,               -- afterstop.mcp.handler: what a server's handler did after the cancel (stopped, finished_after_cancel)
  tool_foreign    VARCHAR,               -- afterstop.tool.foreign: a commit marker under another instrumentation's tool span ('true')
  -- The far side's witness (issue 49): a commit marker's request span id and round trip; a service span's
  -- database and messaging systems and HTTP method and status (METRICS.md §2, SEMCONV.md).
  request_span_id VARCHAR,               -- afterstop.tool.commit.request_span_id: the span id its request's traceparent carried
  commit_round_trip_ms DOUBLE,           -- afterstop.tool.commit.round_trip_ms (response: body sent → answer)
  db_system       VARCHAR,               -- db.system.name, else db.system
  messaging_system VARCHAR,              -- messaging.system
  http_status     BIGINT,                -- http.response.status_code, else http.status_code
  http_method     VARCHAR,               -- http.request.method, else http.method
  error_type      VARCHAR,
  exception_text  VARCHAR,               -- exception messages of the span's events
  oi_kind         VARCHAR,               -- openinference.span.kind
  traceloop_kind  VARCHAR,               -- traceloop.span.kind
  is_cancellation BOOLEAN NOT NULL DEFAULT false,    -- ended by an abort or cancel (error.type cancelled, a status or exception naming one)
  has_http        BOOLEAN NOT NULL DEFAULT false,    -- has http.* attributes (false for a span that names its run)
  agent_like      BOOLEAN NOT NULL DEFAULT false,    -- has GenAI, AI SDK, OpenInference or OpenLLMetry attributes, or names its run
  output_tool_calls BOOLEAN NOT NULL DEFAULT false,  -- tool call ids in a model's output attributes
  output_attrs    MAP(VARCHAR, VARCHAR),  -- all attributes (as text), kept only for a span with output_tool_calls
  -- The leak model's view of the span: its role (run, tool, model, marker, mcp_server, service, other) and its run
  -- (METRICS.md, introduction). Set when stored; assign-runs.sql sets them for spans that do not name their run.
  role            VARCHAR,
  run_id          VARCHAR
  -- One row per (trace_id, span_id): dedupe-spans.sql keeps a span once. No key index: maintaining
  -- one cost more than all the rest of storing.
);

-- One row per run (run-facts.sql), kept the same way.
CREATE TABLE IF NOT EXISTS run_facts (
  run_id VARCHAR, trace_id VARCHAR, service VARCHAR, agent VARCHAR, framework VARCHAR, conversation_id VARCHAR,
  start_ns BIGINT, end_ns BIGINT, unended BOOLEAN, outcome VARCHAR, cancelled BOOLEAN, c_ns BIGINT,
  cancel_inferred BOOLEAN, a_ns BIGINT, settle_marker_ns BIGINT, has_request BOOLEAN,
  cancel_source VARCHAR,  -- afterstop.cancel.source of its first cancel request; mcp: an MCP server's run, stopped by the cancel it received
  uninstrumented VARCHAR, -- the frameworks afterstop does not instrument that ran beside it, sorted, comma-separated
  mcp_handler VARCHAR     -- an MCP server's run (issue 48): what its handler did after the cancel (stopped, finished_after_cancel)
);

-- One row per tool call of a cancelled run (tool-call-facts.sql), kept the same way: a report reads it, not the
-- spans. A fact of a run carries the run's group, conversation, start (the report's window), C and A, so that the
-- report reads it without joining the runs (a run and its facts lie in one trace: they change together).
CREATE TABLE IF NOT EXISTS tool_call_facts (
  run_id VARCHAR, call_id VARCHAR, tool_name VARCHAR, start_ns BIGINT, has_span BOOLEAN, executed BOOLEAN,
  end_ns BIGINT, result VARCHAR, effect VARCHAR, kind VARCHAR, trace_id VARCHAR,
  -- An MCP tools/call (issue 48): its server and request id, how the Stop crossed (afterstop.mcp.cancel.via), and of
  -- its server side joined to it: the handler's end, what it did after the cancel, when and how the cancel arrived.
  mcp_server VARCHAR, mcp_request_id VARCHAR, mcp_cancel_via VARCHAR,
  server_end_ns BIGINT, mcp_handler VARCHAR, cancel_received_ns BIGINT, received_via VARCHAR,
  service VARCHAR, agent VARCHAR, framework VARCHAR, conversation_id VARCHAR, run_start_ns BIGINT, c_ns BIGINT, a_ns BIGINT
);

-- One row per ghost commit of a run (ghost-commit-facts.sql), and the compensations that may cover them
-- (compensation-facts.sql), kept the same way.
CREATE TABLE IF NOT EXISTS ghost_commit_facts (
  run_id VARCHAR, trace_id VARCHAR, span_id VARCHAR, tool_call_id VARCHAR, tool VARCHAR, effect VARCHAR,
  time_ns BIGINT, after_stop_ns BIGINT, compensable BOOLEAN, inferred BOOLEAN, possible_kind VARCHAR, sent_ns BIGINT,
  service VARCHAR, agent VARCHAR, framework VARCHAR, conversation_id VARCHAR, run_start_ns BIGINT,
  -- A commit marker's evidence and what the report decides it with (issue 49, prepare-commit-verdicts.sql): C, its own
  -- interval (agent clock; latest NULL: open), its witness (service | mcp_server), the witness's verdict (happened |
  -- failed | received), the service's receipt and work interval (its clock), its service and span, and the two
  -- processes whose clock bound maps them (clock_pair_facts).
  c_ns BIGINT, evidence VARCHAR, earliest_ns BIGINT, latest_ns BIGINT, witness VARCHAR, witness_verdict VARCHAR,
  witness_received_ns BIGINT, witness_start_ns BIGINT, witness_end_ns BIGINT, witness_service VARCHAR, witness_span VARCHAR,
  client_process VARCHAR, server_process VARCHAR
);
-- One row per (client span, server span) of two processes in a trace (clock-pair-facts.sql): the server span a
-- child of the client's (an HTTP request's CLIENT span, or an MCP tools/call's client execute_tool span), kept the
-- same way, with the client span's run; the report bounds each ordered pair of processes' clock offset from all of them (METRICS.md §2).
CREATE TABLE IF NOT EXISTS clock_pair_facts (
  run_id VARCHAR, trace_id VARCHAR, client_process VARCHAR, server_process VARCHAR, client_start_ns BIGINT, client_end_ns BIGINT,
  server_start_ns BIGINT, answered BOOLEAN
);
CREATE TABLE IF NOT EXISTS compensation_facts (tool_call_id VARCHAR, run_id VARCHAR, trace_id VARCHAR);

-- One row per cancelled run (cancel-span-facts.sql): what its spans say around C, with the run's group, start,
-- C, A and settle marker (the report's cancel latency and depth read no other table), kept the same way.
CREATE TABLE IF NOT EXISTS cancel_span_facts (
  run_id VARCHAR, trace_id VARCHAR, quiet_end_ns BIGINT, work_after BIGINT, inflight_model_end_ns BIGINT, tool_evidence BOOLEAN,
  service VARCHAR, agent VARCHAR, framework VARCHAR, run_start_ns BIGINT, c_ns BIGINT, a_ns BIGINT, settle_marker_ns BIGINT,
  has_request BOOLEAN
);

-- The steering marks and the commits of each run (steer-mark-facts.sql, commit-facts.sql), kept the same way;
-- and what they come to per scope, a conversation's marks and commits lying in several traces
-- (steer-facts.sql, replay-facts.sql): recomputed for the scopes an ingest or a prune touched (touched_scopes).
CREATE TABLE IF NOT EXISTS steer_mark_facts (
  run_id VARCHAR, trace_id VARCHAR, name VARCHAR, start_ns BIGINT, steer_id VARCHAR, position VARCHAR, scope VARCHAR,
  service VARCHAR, agent VARCHAR, framework VARCHAR, run_start_ns BIGINT
);
CREATE TABLE IF NOT EXISTS commit_facts (
  run_id VARCHAR, trace_id VARCHAR, span_id VARCHAR, start_ns BIGINT, tool_call_id VARCHAR, tool VARCHAR, scope VARCHAR, effect_key VARCHAR,
  guard_key VARCHAR
);
CREATE TABLE IF NOT EXISTS steer_facts (
  scope VARCHAR, steer_id VARCHAR, run_id VARCHAR, trace_id VARCHAR, enqueued_ns BIGINT, injected_ns BIGINT, position VARCHAR,
  dropped_marker BOOLEAN, inject_ms DOUBLE, dropped BOOLEAN, violation BOOLEAN,
  service VARCHAR, agent VARCHAR, framework VARCHAR, run_start_ns BIGINT   -- the enqueuing run's group and start
);
-- Which scope each kept mark and commit belongs to: the one list of the tables with a scope, that
-- forget-facts.sql, note-touched-scopes.sql and prune-facts.sql read to know the scopes to recompute.
CREATE VIEW IF NOT EXISTS scope_members AS
SELECT scope, trace_id, run_id FROM steer_mark_facts
UNION ALL SELECT scope, trace_id, run_id FROM commit_facts;
CREATE TABLE IF NOT EXISTS replay_facts (
  run_id VARCHAR, trace_id VARCHAR, span_id VARCHAR, start_ns BIGINT, tool_call_id VARCHAR, tool VARCHAR, scope VARCHAR, effect_key VARCHAR,
  guard_key VARCHAR, first_run_id VARCHAR,
  deduplicated BOOLEAN   -- it carried the same idempotency key (the guard's header) as an earlier commit of the effect
);

-- The model calls that may have billed tokens after Stop and the tool call ids each history repair lists
-- (model-call-facts.sql, repair-facts.sql), per run, kept the same way.
CREATE TABLE IF NOT EXISTS model_call_facts (
  run_id VARCHAR, trace_id VARCHAR, span_id VARCHAR, model VARCHAR, provider VARCHAR, start_ns BIGINT, end_ns BIGINT, input_tokens BIGINT,
  output_tokens BIGINT, output_tokens_after_cancel BIGINT, f_ns BIGINT, cut_step BOOLEAN,
  service VARCHAR, agent VARCHAR, framework VARCHAR, conversation_id VARCHAR, run_start_ns BIGINT, c_ns BIGINT
);
CREATE TABLE IF NOT EXISTS repair_facts (run_id VARCHAR, trace_id VARCHAR, start_ns BIGINT, conversation_id VARCHAR, call_id VARCHAR);

-- The spans with status ERROR (not the cancellation) and the orphan-process markers (error-span-facts.sql,
-- orphan-process-facts.sql), per run, kept the same way.
CREATE TABLE IF NOT EXISTS error_span_facts (
  run_id VARCHAR, trace_id VARCHAR, span_id VARCHAR, end_ns BIGINT, status_message VARCHAR, error_type VARCHAR, exception_text VARCHAR
);
CREATE TABLE IF NOT EXISTS orphan_process_facts (run_id VARCHAR, trace_id VARCHAR, span_id VARCHAR, start_ns BIGINT, pid VARCHAR);
-- The commits the guard's fence prevented (prevented-commit-facts.sql), per run, kept the same way.
CREATE TABLE IF NOT EXISTS prevented_commit_facts (
  run_id VARCHAR, trace_id VARCHAR, span_id VARCHAR, start_ns BIGINT, tool_call_id VARCHAR, tool VARCHAR, effect VARCHAR
);

-- Which afterstop wrote this store. A store of another version is not read (see analyzer/store.ts).
CREATE TABLE IF NOT EXISTS store_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);

CREATE TABLE IF NOT EXISTS ingested_files (
  path        VARCHAR PRIMARY KEY,
  size        BIGINT NOT NULL,           -- bytes when it was read
  mtime_ms    DOUBLE NOT NULL,
  spans       BIGINT NOT NULL,           -- spans read from it (duplicates included)
  skipped     BIGINT NOT NULL,           -- lines that could not be read
  ingested_at TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS skipped_lines (
  file    VARCHAR NOT NULL,
  line    BIGINT NOT NULL,               -- 1-based; 0 when the whole file could not be read
  reason  VARCHAR NOT NULL
);
