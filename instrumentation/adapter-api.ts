/**
 * The core as the framework adapters (auto/) see it: the one module of the
 * instrumentation they import, besides each other and the packages they patch
 * (a dependency-cruiser rule, .dependency-cruiser.cjs). Re-exports only: what
 * an adapter may rely on is listed here, and the core behind it can change
 * without touching auto/.
 */

// Runs: start one or join the app's, find the active one, end one the Stop ended.
export { joinOrStartRun, startRun } from './run-start.js';
export { activeRun, activeTool, endStoppedRun, outsideTool, type CommitSink } from './run-context.js';
export { cancelSourceOf } from './run.js';
// A command's first word, never its arguments (an MCP server's over stdio).
export { commandWord } from './command-word.js';
export { annotateRun, callContext, contextOf, toolOutOfSight, toolSinkOf } from './handles.js';
// Child processes: the run's mark in their environment (process-tree.ts).
export { RUN_MARK_VARIABLE } from './process-tree.js';
// The run's signal (and its deadline) handed to a framework call's options.
export { withRunSignal } from './run-signal.js';

// Tool calls: started by the framework, the body run in the call's context, ended with their output.
export { endToolCall, invokeInToolCall, recordToolOutput, startFrameworkTool, toolBodyEnded } from './tool.js';

// MCP servers: a `tools/call` the server handles as the server side of a tool call (mcp-server-call.ts).
export { effectOfToolAnnotations, mcpServerToolThrew, startMcpServerCall, type McpCancelVia, type McpServerToolCall } from './mcp-server-call.js';
export { NETWORK_TRANSPORT_PIPE, NETWORK_TRANSPORT_TCP } from './semconv.js';

// Model calls: observed around an SDK call; content captured within its budget.
export { observeCall } from './observe-call.js';
export { contentBudget, contentEnabled } from './content.js';
export { calledByFrameworkWithOwnSpans, noteUninstrumented } from './uninstrumented.js';

// Commits: HTTP commit detection switched on and off, and whether it is on; the guard's configuration.
export { detectorDisabled, detectorEnabled, httpCommitsDetected } from './commit-detection.js';
export { fenceHolds, guard } from './guard/index.js';

// Errors: what a Stop or the fence throws, and how an abort is recognised.
export { CommitFencedError, isAbortError, markAborted } from './errors.js';

// Never throwing into the app: wrap every patch; say a thing once.
export { safely, sayOnce } from './safe.js';

// The span contract's names adapters write themselves.
export {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GUARD_MCP_CANCEL,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_CANCEL_VIA,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_SERVER,
  ATTR_MCP_SESSION_ID,
  ATTR_MCP_SIDE,
  ATTR_NETWORK_TRANSPORT,
  ATTR_RUN_RESUMES,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_TOOL_COMMIT_UNANSWERED_MS,
  MCP_METHOD_TOOLS_CALL,
  OUT_OF_SIGHT_MCP,
  SPAN_MCP_CANCEL,
} from './semconv.js';
export { ATTR_RUN_COST_USD, FRAMEWORK_ANTHROPIC_SDK, FRAMEWORK_CLAUDE_AGENT_SDK, FRAMEWORK_OPENAI_SDK, OUT_OF_SIGHT_SUBPROCESS } from './semconv.js';

// Time as OpenTelemetry has it (an end time taken when the framework reports it).
export { hrTime } from './otel-compat.js';

// The instrumentation's version (each Instrumentation's).
export { VERSION } from './version.js';

// The public types adapters handle.
export type { CancelSource, ModelCall, ModelEndOptions, ModelUsage, Run, ToolCall, ToolEffect } from './types.js';
