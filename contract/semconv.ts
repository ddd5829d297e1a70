/**
 * Span names and attribute keys of afterstop's span contract (schema 0.1,
 * docs/spec/SEMCONV.md, the project's copy of the shared contract), and the OpenTelemetry GenAI names we reuse.
 *
 * The GenAI names are copied here on purpose rather than imported from
 * `@opentelemetry/semantic-conventions/incubating`: incubating names can
 * change between releases, and the analyzer must keep reading what this
 * version wrote.
 */

export const SCHEMA_VERSION = '0.1';

// --- resource
export const ATTR_SERVICE_NAME = 'service.name';
export const ATTR_AFTERSTOP_SCHEMA_VERSION = 'afterstop.schema.version';

// --- GenAI names we reuse
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';
// Content, opt-in (content.ts).
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const ATTR_GEN_AI_SYSTEM_INSTRUCTIONS = 'gen_ai.system_instructions';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_PROCESS_PID = 'process.pid';
export const ATTR_PROCESS_EXECUTABLE_NAME = 'process.executable.name';

export const GEN_AI_OPERATION_INVOKE_AGENT = 'invoke_agent';
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';
export const GEN_AI_OPERATION_CHAT = 'chat';

// --- common afterstop attributes
export const ATTR_RUN_ID = 'afterstop.run.id';
export const ATTR_FRAMEWORK = 'afterstop.framework';
export const ATTR_RUN_OUTCOME = 'afterstop.run.outcome';

// --- cancel
export const SPAN_CANCEL_REQUEST = 'afterstop.cancel.request';
export const SPAN_CANCEL_ACK = 'afterstop.cancel.ack';
export const SPAN_CANCEL_SETTLE = 'afterstop.cancel.settle';
export const ATTR_CANCEL_ID = 'afterstop.cancel.id';
export const ATTR_CANCEL_SOURCE = 'afterstop.cancel.source';
export const ATTR_CANCEL_REASON = 'afterstop.cancel.reason';
export const ATTR_CANCEL_OUTCOME = 'afterstop.cancel.outcome';
export const ATTR_CANCEL_UNSETTLED = 'afterstop.cancel.unsettled';
export const ATTR_CANCEL_STATE = 'afterstop.cancel.state';
export const ATTR_INFLIGHT_TOOL_CALLS = 'afterstop.inflight.tool_calls';
export const ATTR_INFLIGHT_MODEL_CALLS = 'afterstop.inflight.model_calls';
/** At most this many characters of a cancel reason are recorded. */
export const CANCEL_REASON_MAX_LENGTH = 256;

// --- tools
/** The instrumentation scope of every span afterstop writes: the analyzer tells afterstop's tool spans by it. */
export const AFTERSTOP_SCOPE = 'afterstop';
export const SPAN_TOOL_START = 'afterstop.tool.start';
export const SPAN_TOOL_COMMIT = 'afterstop.tool.commit';
export const SPAN_TOOL_COMPENSATE = 'afterstop.tool.compensate';
export const ATTR_TOOL_EFFECT = 'afterstop.tool.effect';
export const ATTR_TOOL_IDEMPOTENCY_KEY = 'afterstop.tool.idempotency_key';
export const ATTR_TOOL_SIGNAL_OBSERVED = 'afterstop.tool.signal_observed';
export const ATTR_TOOL_RESULT = 'afterstop.tool.result';
/** `step` for a framework step run as a tool call (a LangGraph node, a workflow step): not in the conversation, never an orphan (afterstop addition). */
export const ATTR_TOOL_KIND = 'afterstop.tool.kind';
/**
 * On a tool span: its effect happened out of afterstop's sight, carried there by what the value names (`mcp`:
 * an MCP `tools/call` the body sent, the effect being the MCP server's, another process's). In flight at Stop and
 * not read-only, such a call is at best a possible ghost commit (METRICS.md §2, `out_of_sight`) (afterstop addition).
 */
export const ATTR_TOOL_OUT_OF_SIGHT = 'afterstop.tool.out_of_sight';
/** The value of {@link ATTR_TOOL_OUT_OF_SIGHT} for an MCP `tools/call` sent inside the tool's body. */
export const OUT_OF_SIGHT_MCP = 'mcp';
/** On a run that resumes an interrupted or stopped run of the same thread: that run's id (afterstop addition). */
export const ATTR_RUN_RESUMES = 'afterstop.run.resumes';
/** On a run span: the packages the process had loaded that afterstop knows of and does not instrument (an agent framework, agent SDK or MCP client), sorted and comma-separated; the run's figures are lower bounds (afterstop addition). */
export const ATTR_RUN_UNINSTRUMENTED = 'afterstop.run.uninstrumented';
/** How a commit is known (afterstop addition to SEMCONV.md): `manual` (the tool said so), `response` (a non-GET HTTP request it made was answered), `request_sent` (its body reached the server and the answer was lost). */
export const ATTR_TOOL_COMMIT_EVIDENCE = 'afterstop.tool.commit.evidence';
/** On the tool span: the commit markers the call wrote before its span ended (a store with fewer lost some). */
export const ATTR_TOOL_COMMIT_COUNT = 'afterstop.tool.commit.count';
/** On the tool span: its mutating requests still unanswered when the span ended (each may yet write a commit marker). */
export const ATTR_TOOL_COMMIT_PENDING = 'afterstop.tool.commit.pending';
/** On the tool span: the caller stopped waiting for the body, which may go on (the end of its work is not seen). */
export const ATTR_TOOL_BODY_DETACHED = 'afterstop.tool.body_detached';
/** With evidence `request_sent`: how long (ms) the request went unanswered, from its body reaching the server to the answer's loss (the marker's time). */
export const ATTR_TOOL_COMMIT_UNANSWERED_MS = 'afterstop.tool.commit.unanswered_ms';
export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_COMPENSATION_OUTCOME = 'afterstop.compensation.outcome';
export const ERROR_TYPE_CANCELLED = 'cancelled';

// --- the guard (afterstop addition, SEMCONV.md "Guard"; guard/)
/** A tool's mutating HTTP request refused by the commit fence: its run was already stopped, nothing was sent. */
export const SPAN_TOOL_COMMIT_PREVENTED = 'afterstop.tool.commit.prevented';
/** On a commit (and a prevented commit): the idempotency key its HTTP request carried to a host the guard keys (afterstop's, or the app's own in that header). */
export const ATTR_GUARD_IDEMPOTENCY_KEY = 'afterstop.guard.idempotency_key';
/**
 * A tool's mutating HTTP request the fence let through although its run was stopped, because it carries
 * the Stop or cleans up: a marker with `http.request.method`, `server.address` and {@link ATTR_GUARD_FENCE_PASSED}.
 */
export const SPAN_TOOL_FENCE_PASSED = 'afterstop.tool.fence.passed';
/** On that marker, and on a commit its request made: why it passed, `cancel` (a known cancel call) or `cleanup` (made in `afterStopCleanup`). */
export const ATTR_GUARD_FENCE_PASSED = 'afterstop.guard.fence.passed';
/** On a cancel request: the run's deadline (ms) when the guard's deadline made the cancel. */
export const ATTR_CANCEL_DEADLINE_MS = 'afterstop.cancel.deadline_ms';
/**
 * On a cancel request the guard's deadline made: whether the run's signal had reached what runs the run
 * (the app's own run; a framework or SDK call afterstop handed it to). `false`: nothing was told to stop,
 * and the framework's end is not recorded as an acknowledgement.
 */
export const ATTR_CANCEL_DELIVERED = 'afterstop.cancel.delivered';

// --- model calls
export const ATTR_MODEL_ABORTED = 'afterstop.model.aborted';
export const ATTR_MODEL_OUTPUT_TOKENS_STREAMED = 'afterstop.model.output_tokens_streamed';
export const ATTR_MODEL_OUTPUT_TOKENS_AFTER_CANCEL = 'afterstop.model.output_tokens_after_cancel';
export const ATTR_MODEL_USAGE_SOURCE = 'afterstop.model.usage_source';

// --- steering
export const SPAN_STEER_ENQUEUE = 'afterstop.steer.enqueue';
export const SPAN_STEER_INJECT = 'afterstop.steer.inject';
export const SPAN_STEER_DROP = 'afterstop.steer.drop';
export const ATTR_STEER_ID = 'afterstop.steer.id';
export const ATTR_STEER_POSITION = 'afterstop.steer.position';
export const ATTR_STEER_REASON = 'afterstop.steer.reason';

// --- history repair
export const SPAN_HISTORY_REPAIR = 'afterstop.history.repair';
export const ATTR_REPAIR_STRATEGY = 'afterstop.repair.strategy';
export const ATTR_REPAIR_TOOL_CALL_IDS = 'afterstop.repair.tool_call_ids';

// --- child processes
export const SPAN_PROCESS_SPAWN = 'afterstop.process.spawn';
export const SPAN_PROCESS_ORPHAN = 'afterstop.process.orphan';

// --- live metrics (SEMCONV.md, "Live metrics"; live-metrics.ts)
export const METRIC_CANCEL_REQUESTS = 'afterstop.cancel.requests';
export const METRIC_CANCEL_ACK_DURATION = 'afterstop.cancel.ack.duration';
export const METRIC_TOOL_COMMITS_AFTER_STOP = 'afterstop.tool.commits_after_stop';
export const METRIC_TOOL_POSSIBLE_GHOST_COMMITS = 'afterstop.tool.possible_ghost_commits';
export const METRIC_TOOL_ORPHANED_CALLS = 'afterstop.tool.orphaned_calls';
export const METRIC_MODEL_OUTPUT_TOKENS_AFTER_STOP = 'afterstop.model.output_tokens_after_stop';
export const METRIC_MODEL_CALLS_AFTER_STOP = 'afterstop.model.calls_after_stop';
export const METRIC_TOOL_COMMITS_PREVENTED = 'afterstop.tool.commits_prevented';

// MCP and process trees (issue 48)
/**
 * On a commit marker (and a prevented commit, a fence passage): the tool call is another instrumentation's
 * `execute_tool` span (a framework afterstop does not patch: Google ADK, Strands Agents), the marker's parent;
 * its `gen_ai.tool.name` and `gen_ai.tool.call.id` are that span's (afterstop addition).
 */
export const ATTR_TOOL_FOREIGN = 'afterstop.tool.foreign';
// The MCP server side (SEMCONV.md "MCP (server side)"; instrumentation/mcp-server-call.ts)
/** OpenTelemetry MCP semantic conventions (Development), used as they are. */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
export const MCP_METHOD_TOOLS_CALL = 'tools/call';
/** `network.transport` of an MCP stdio transport (the pipe) and of an HTTP one. */
export const NETWORK_TRANSPORT_PIPE = 'pipe';
export const NETWORK_TRANSPORT_TCP = 'tcp';
/** Which side of MCP wrote a tool span: `client` (the call the agent made) or `server` (the handler that ran it) (afterstop addition). */
export const ATTR_MCP_SIDE = 'afterstop.mcp.side';
export const MCP_SIDE_SERVER = 'server';
/** How a cancel crossed the boundary: `notification` (`notifications/cancelled`) or `stream_closed` (the request's stream or connection closed) (afterstop addition). */
export const ATTR_MCP_CANCEL_VIA = 'afterstop.mcp.cancel.via';
export const MCP_CANCEL_VIA_NOTIFICATION = 'notification';
export const MCP_CANCEL_VIA_STREAM_CLOSED = 'stream_closed';
/** A server's `tools/call` handler was told to stop (marker, child of the server tool span, at the instant it was received) (afterstop addition). */
export const SPAN_MCP_CANCEL_RECEIVED = 'afterstop.mcp.cancel.received';
/** On a server tool span that received a cancel: `stopped` (the handler honoured its signal) or `finished_after_cancel` (it did its work all the same) (afterstop addition). */
export const ATTR_MCP_HANDLER = 'afterstop.mcp.handler';
export const MCP_HANDLER_STOPPED = 'stopped';
export const MCP_HANDLER_FINISHED_AFTER_CANCEL = 'finished_after_cancel';
// The MCP client side (SEMCONV.md, Tool calls, "MCP (client side)"; auto/mcp*.ts)
export const ATTR_SERVER_PORT = 'server.port';
/** The MCP server a tool call went to: its initialize `serverInfo.name`, else the first word of its command, or its URL's host (never arguments). */
export const ATTR_MCP_SERVER = 'afterstop.mcp.server';
/** Marker, child of the tool span: the cancel of an MCP request crossed to the server (`afterstop.mcp.cancel.via`, `jsonrpc.request.id`), at that instant. */
export const SPAN_MCP_CANCEL = 'afterstop.mcp.cancel';
/** On an `afterstop.mcp.cancel` marker: the guard sent the `notifications/cancelled` (the client did not). */
export const ATTR_GUARD_MCP_CANCEL = 'afterstop.guard.mcp_cancel';
// Process trees and the Claude Agent SDK (SEMCONV.md "Child processes", "Claude Agent SDK")
/** The parent process's pid on `afterstop.process.spawn` / `afterstop.process.orphan` markers. */
export const ATTR_PROCESS_PARENT_PID = 'process.parent_pid';
/** `afterstop.framework` of a Claude Agent SDK `query()`. */
export const FRAMEWORK_CLAUDE_AGENT_SDK = 'claude-agent-sdk';
/** The cost in USD the agent SDK reported for the run (the Claude Agent SDK's result `total_cost_usd`), on the run span. */
export const ATTR_RUN_COST_USD = 'afterstop.run.cost_usd';
/** The value of {@link ATTR_TOOL_OUT_OF_SIGHT} for a tool an agent subprocess ran (the Claude Code CLI's Bash): its effect is that process's. */
export const OUT_OF_SIGHT_SUBPROCESS = 'subprocess';

// The far side's witness (issue 49)
/** On a commit marker: the span id (16 lower-case hex) its HTTP request's `traceparent` carried: afterstop's request span, or the app's own client span when the app's HTTP instrumentation set the header. */
export const ATTR_TOOL_COMMIT_REQUEST_SPAN_ID = 'afterstop.tool.commit.request_span_id';
/** On a `response` commit: ms from the request's making to its answer; the effect happened in [marker − round_trip_ms, marker]. */
export const ATTR_TOOL_COMMIT_ROUND_TRIP_MS = 'afterstop.tool.commit.round_trip_ms';
/** On afterstop's request span: how the request's trace context came to be: `injected` (afterstop set traceparent). */
export const ATTR_REQUEST_TRACE_CONTEXT = 'afterstop.request.trace_context';
export const ATTR_URL_SCHEME = 'url.scheme';
export const ATTR_ERROR_TYPE_REQUEST_LOST = 'request_lost';
export const ATTR_DB_SYSTEM_NAME = 'db.system.name';
export const ATTR_DB_SYSTEM = 'db.system';
export const ATTR_MESSAGING_SYSTEM = 'messaging.system';
export const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';
export const ATTR_HOST_NAME = 'host.name';

// A model SDK used directly (issue 50): each model call with no afterstop run around it is a run of its own
/** `afterstop.framework` of an openai SDK call made outside any afterstop run. */
export const FRAMEWORK_OPENAI_SDK = 'openai-sdk';
/** `afterstop.framework` of an `@anthropic-ai/sdk` call made outside any afterstop run. */
export const FRAMEWORK_ANTHROPIC_SDK = 'anthropic-sdk';
/**
 * The frameworks whose run is one model call: afterstop sees neither the agent's loop nor its tools there, so
 * a stopped run of theirs says nothing of the tools' side effects (the report's verdict says so).
 */
export const MODEL_CALL_RUN_FRAMEWORKS: readonly string[] = [FRAMEWORK_OPENAI_SDK, FRAMEWORK_ANTHROPIC_SDK];
