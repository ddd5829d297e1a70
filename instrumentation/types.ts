/**
 * Public types of afterstop's instrumentation API. Private state shapes live
 * in `internal-types.ts`.
 */
import type { Attributes } from '@opentelemetry/api';

/** Who or what asked for the cancel (SEMCONV `afterstop.cancel.source`). */
export type CancelSource = 'user' | 'timeout' | 'budget' | 'parent' | 'sibling' | 'shutdown' | 'other';
/** How a run ended (SEMCONV `afterstop.run.outcome`). */
export type RunOutcome = 'completed' | 'cancelled' | 'failed';
/** How the orchestration loop stopped (SEMCONV `afterstop.cancel.outcome`). */
export type CancelAckOutcome = 'stopped' | 'deadline_exceeded' | 'forced';
/** The run's cancel state at an instant (SEMCONV `afterstop.cancel.state`). */
export type CancelState = 'none' | 'requested' | 'acknowledged';
/** What a tool's side effect is (SEMCONV `afterstop.tool.effect`). */
export type ToolEffect = 'read' | 'idempotent' | 'reversible' | 'irreversible' | 'unknown';
/** What became of a tool's result (SEMCONV `afterstop.tool.result`). */
export type ToolResultDelivery = 'delivered' | 'late' | 'dropped' | 'cancelled';
/** Where a model call's token counts came from. */
export type UsageSource = 'provider' | 'estimated' | 'none';
/** Where a steering message was injected. `inside_tool_batch` is a violation. */
export type SteerPosition = 'between_steps' | 'inside_tool_batch';
/** How a history with unanswered tool calls was repaired. */
export type RepairStrategy = 'synthetic_result' | 'drop_turn';
/** How a compensating action ended. */
export type CompensationOutcome = 'succeeded' | 'failed';
/** Which exporter the embedded pipeline uses. */
export type ExporterKind = 'file' | 'otlp' | 'none';

/** Options of the embedded pipeline. Every field has an environment variable or a default. */
export interface AfterstopConfig {
  /** `service.name` when `OTEL_SERVICE_NAME` is not set. */
  serviceName?: string;
  /**
   * `file` writes OTLP/JSON lines to `tracesDir`; `otlp` posts to the OTLP/HTTP
   * endpoint from `OTEL_EXPORTER_OTLP_*`. Default: `AFTERSTOP_EXPORTER`, else
   * `otlp` when an OTLP endpoint variable is set, else `file`.
   */
  exporter?: ExporterKind;
  /** Folder for the file exporter. Default `AFTERSTOP_TRACES_DIR` or `./afterstop-traces`. */
  tracesDir?: string;
  /** A trace file is rotated when the next line would make it larger than this. Default 32 MiB. */
  maxFileBytes?: number;
  /** Spans held while the exporter is slow or down; beyond it the oldest are dropped and counted. Default 4096. */
  maxQueueSize?: number;
  /**
   * The most spans one export takes. Default 512. An export starts once 64 spans wait (or at
   * `scheduledDelayMs`), and takes what waits then, up to this, in requests of 64 at most.
   */
  maxExportBatchSize?: number;
  /** How long a span waits in the queue at most before an export starts. Default 1000 ms. */
  scheduledDelayMs?: number;
  /** An export that takes longer counts as failed. Default 10 000 ms. */
  exportTimeoutMs?: number;
  /**
   * The longest `cancel()` (and an awaited ghost `commit()`) waits for the
   * flush of its marker. Default 2000 ms. The abort signal fires before, at once.
   */
  flushTimeoutMs?: number;
  /** Default settle deadline of runs, see {@link RunOptions.settleDeadlineMs}. Default 5000 ms. */
  settleDeadlineMs?: number | false;
  /** Default grace period for child processes, see {@link Run.trackProcess}; from the run's Stop (or its end, without a Stop). Default `AFTERSTOP_PROCESS_GRACE_MS`, else 5000 ms. */
  processGraceMs?: number;
  /**
   * The guard: stop the leaks afterstop measures. Every part is off unless
   * switched on here or in the environment (`AFTERSTOP_GUARD_*`); what is set
   * here wins over the environment. `setup({ guard })` applies it even when
   * `afterstop/register` set the pipeline up first.
   */
  guard?: GuardOptions;
  /**
   * W3C trace context on a tool's HTTP requests (docs/spec/SEMCONV.md, "Trace context on tool requests"):
   * on by default. `setup({ traceContext })` applies it even when `afterstop/register` set the pipeline up first.
   */
  traceContext?: TraceContextOptions;
}

/**
 * A tool's HTTP request (fetch, undici, node:http/https) gets afterstop's request span, a child of the tool
 * span, and carries it as `traceparent` (and `tracestate`), so that a traced service's spans join the tool
 * call's trace. Never a request that already carries `traceparent` (the app's own HTTP instrumentation),
 * never telemetry's own requests.
 */
export interface TraceContextOptions {
  /** Default `AFTERSTOP_TRACE_CONTEXT` (`off` switches it off), else on. */
  enabled?: boolean;
  /** Hosts whose requests get no trace context: names, `*.example.com` (its subdomains), `*`. Default `AFTERSTOP_TRACE_CONTEXT_EXCLUDE_HOSTS` (comma-separated). */
  excludeHosts?: readonly string[];
}

/**
 * The guard (docs/guard.md). Each part is opt-in.
 */
export interface GuardOptions {
  /**
   * The commit fence: a tool's mutating HTTP request (not GET, HEAD, OPTIONS,
   * TRACE; `fetch` or `node:http`/`node:https`) made once its run was stopped is
   * refused: nothing is sent, the tool gets an `AbortError`
   * ({@link CommitFencedError}), and an `afterstop.tool.commit.prevented`
   * marker records it. `true`: every tool; a list: the tools so named.
   * A compensating tool call (`kind: 'compensate'`) is never fenced.
   * `{ tools, hosts }`: only those tools (default every one), only requests to
   * those hosts (names, `*.example.com`; default every host): work a tool
   * body leaves running (a timer, a client made inside it) keeps its context,
   * so `hosts` keeps the fence to the services that take side effects.
   * `AFTERSTOP_GUARD_FENCE` = `true`, or tool names separated by commas;
   * `AFTERSTOP_GUARD_FENCE_HOSTS`.
   */
  fence?: boolean | readonly string[] | { tools?: readonly string[]; hosts?: readonly string[] };
  /**
   * Idempotency keys: a tool's mutating request to one of `hosts` gets a
   * `header` (default `Idempotency-Key`) derived from the conversation, the
   * tool call id and the request's place among the call's requests to that
   * endpoint, so a retry or a replay (a resumed checkpoint) carries the same
   * key. A key the app set is never replaced. `hosts`: names (`api.stripe.com`),
   * `*.example.com` (its subdomains), or `*` (every host).
   * `AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS` (comma-separated),
   * `AFTERSTOP_GUARD_IDEMPOTENCY_HEADER`.
   * `secret` (`AFTERSTOP_GUARD_IDEMPOTENCY_SECRET`): the HMAC key the keys are
   * made with; without it, a random one for the process (a replay in another
   * process gets other keys). `scope` (`AFTERSTOP_GUARD_IDEMPOTENCY_SCOPE`):
   * `auto` (default: the conversation scopes keys only when its id and the
   * call id are strong, else the run), or `conversation` (the app's word that
   * its conversation ids are unique: replay-stable keys even with weak call ids).
   */
  idempotencyKeys?: { hosts: readonly string[]; header?: string; secret?: string; scope?: 'auto' | 'conversation' } | false;
  /**
   * A run longer than this (ms) is cancelled with source `timeout`; the
   * instrumented frameworks get it through their abort signal.
   * `AFTERSTOP_GUARD_DEADLINE_MS`. Per run: {@link RunOptions.deadlineMs}.
   */
  deadlineMs?: number | false;
}

/** What a piece of recorded content is (the attribute it goes to). */
export type ContentKind = 'tool.arguments' | 'tool.result' | 'input.messages' | 'system.instructions' | 'output.messages';

/**
 * What trace content afterstop records: none by default. Tool arguments and
 * results go to `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result`,
 * model input and output to `gen_ai.system_instructions`,
 * `gen_ai.input.messages` and `gen_ai.output.messages`.
 */
export interface ContentCaptureOptions {
  /** Record content. Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` or `AFTERSTOP_CAPTURE_CONTENT=true`. */
  enabled?: boolean;
  /**
   * Runs on every value before it is recorded (as text: JSON for objects) and
   * returns what to record, or anything but a string to record nothing. A
   * hook that throws records nothing. `name`: the tool or model.
   */
  redact?: ((text: string, info: { kind: ContentKind; name?: string }) => unknown) | undefined;
  /**
   * The longest value recorded, in UTF-8 bytes (at least 32); longer ones are
   * cut and end with `…[truncated]` (a cut JSON value no longer parses).
   * Default 4096 (`AFTERSTOP_CONTENT_MAX_BYTES`).
   */
  maxBytes?: number;
}

/** What the pipeline has done so far; `dropped` counts spans that never reached the exporter. */
export interface ExportStats {
  queued: number;
  exported: number;
  dropped: number;
  failedExports: number;
}

export interface RunOptions {
  /** `gen_ai.agent.name`; also names the span `invoke_agent {name}`. */
  agentName?: string;
  /** `gen_ai.conversation.id`: the thread or session the run belongs to. */
  conversationId?: string;
  /** `afterstop.framework`; default `manual`. */
  framework?: string;
  /** `afterstop.run.id`; default the run span's span id. */
  runId?: string;
  /**
   * An abort signal the app already has (its Stop button). When it aborts
   * and nobody called `run.cancel()`, afterstop records the cancel request
   * with `cancelSource` and the signal's reason.
   */
  signal?: AbortSignal;
  /** Source recorded for a cancel that comes from `signal`. Default `user` (`timeout` for a TimeoutError). */
  cancelSource?: CancelSource;
  /**
   * After a cancel request, the settle marker is written when every tool and
   * model call in flight at the request has ended, or this deadline passed.
   * `false` writes no settle marker. Default from config (5000 ms).
   */
  settleDeadlineMs?: number | false;
  /** Extra attributes for the run span. */
  attributes?: Attributes;
  /**
   * Cancel the run (source `timeout`) once it has lasted this long; `false`:
   * no deadline. Default: the guard's `deadlineMs` ({@link GuardOptions}).
   */
  deadlineMs?: number | false;
}

export interface CancelOptions {
  source?: CancelSource;
  /** Recorded up to 256 characters. */
  reason?: string;
}

export interface AcknowledgeOptions {
  outcome?: CancelAckOutcome;
}

export interface RunEndOptions {
  /** Default: `cancelled` when a cancel was requested, `failed` with an error, else `completed`. */
  outcome?: RunOutcome;
  error?: unknown;
}

export interface ToolCallOptions {
  /** `gen_ai.tool.name`. */
  name: string;
  /** `gen_ai.tool.call.id`, the id the model gave the call. Default: a generated id. */
  callId?: string;
  /** Default `unknown`. */
  effect?: ToolEffect;
  idempotencyKey?: string;
  /**
   * Mark a commit for every non-GET/HEAD HTTP request the body makes (fetch
   * or node:http) whose body reached the server. Default `false` for the
   * manual API (the body calls `commit()` itself); the auto-instrumentations
   * turn it on for the tools of the frameworks they patch.
   */
  detectCommits?: boolean;
  /** The call's arguments: recorded only when content capture is on ({@link ContentCaptureOptions}); the guard's idempotency keys hold a digest of them (never recorded). */
  arguments?: unknown;
  /**
   * `step` for a framework step recorded as a tool call (a graph node, a
   * workflow step): its result is a state update, not a message of the
   * conversation, so it is never an orphan. `compensate` for the work that
   * undoes an earlier commit after a Stop (the refund, the recall): it is
   * not the loop going on, so it does not lower the run's cancel depth
   * (record its outcome with `run.compensate()`). Default `tool`.
   */
  kind?: 'tool' | 'step' | 'compensate';
}

/** How a commit is known (`afterstop.tool.commit.evidence`). */
export type CommitEvidence = 'manual' | 'response' | 'request_sent' | 'mcp_result';

export interface ToolEndOptions {
  /**
   * What became of the result. Default: `cancelled` when the call ended by
   * the run's cancellation, `late` when the run had already acknowledged its
   * cancel, else `delivered`.
   */
  result?: ToolResultDelivery;
  error?: unknown;
  /** What the tool returned: recorded only when content capture is on (`run.tool` records the body's value itself). */
  output?: unknown;
  /**
   * The caller stopped waiting for the body, which may go on (a framework that races the abort signal): its later
   * commits are still recorded, but the end of its work is not, so the call is no proof that nothing landed after Stop.
   */
  detached?: boolean;
}

/** What the tool body gets from {@link Run.tool}. */
export interface ToolContext {
  /** The run's abort signal: hand it to every call the body makes. */
  readonly signal: AbortSignal;
  readonly callId: string;
  /**
   * Mark the instant the side effect became real (the POST was answered, the
   * row committed). The promise resolves once the marker is flushed when the
   * run's cancel was already requested (a ghost commit); at once otherwise.
   * It never rejects.
   */
  commit(): Promise<void>;
  /** Override what becomes of the result (see {@link ToolEndOptions.result}). */
  setResult(result: ToolResultDelivery): void;
}

/** A tool call started with {@link Run.startTool}; ends once. */
export interface ToolCall extends ToolContext {
  end(options?: ToolEndOptions): void;
}

export interface ModelCallOptions {
  /** `gen_ai.provider.name`, e.g. `openai`, `anthropic`. */
  provider: string;
  /** `gen_ai.request.model`. */
  model: string;
  /** `gen_ai.operation.name`; default `chat`. */
  operation?: string;
  /** The messages sent to the model: recorded only when content capture is on. */
  inputMessages?: unknown;
  /** The system prompt or instructions sent with them: recorded only when content capture is on. */
  systemInstructions?: unknown;
}

export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
}

export interface ModelEndOptions {
  finishReasons?: string[];
  /** The client closed the request early. Default: the run's signal had aborted and no finish reason came. */
  aborted?: boolean;
  responseModel?: string;
  error?: unknown;
  /** The text the model gave (as far as it came): recorded only when content capture is on. */
  outputText?: string;
  /** `outputText` is only the start of the text (the caller stopped gathering it): it is recorded marked as cut. */
  outputCut?: boolean;
}

/** A model call, streamed or not; ends once. */
export interface ModelCall {
  /** A chunk arrived carrying this many output tokens (default 1). */
  chunk(outputTokens?: number): void;
  /** The provider's final usage. */
  usage(usage: ModelUsage): void;
  end(options?: ModelEndOptions): void;
}

/** The smallest view of a child process that afterstop needs (`node:child_process` fits). */
export interface TrackedProcess {
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | string | null;
  readonly spawnfile?: string;
}

export interface SteeringApi {
  /** A steering message was queued. Returns its id (generated when not given). */
  enqueue(id?: string): string;
  /** It went into the conversation at `position`. */
  inject(id: string, position: SteerPosition): void;
  /** It was discarded. */
  drop(id: string, reason?: string): void;
}

/** One agent run: one user turn. */
export interface Run {
  readonly id: string;
  /** Aborts when the run is cancelled. Hand it to every model and tool call. */
  readonly signal: AbortSignal;
  readonly cancelState: CancelState;
  /** Ask the run to stop. The signal aborts at once; the promise resolves when the request marker is flushed (bounded). Never rejects. */
  cancel(options?: CancelOptions): Promise<void>;
  /** The loop has stopped: no new model or tool call will start. */
  acknowledge(options?: AcknowledgeOptions): void;
  /**
   * For the loop, between steps: when a cancel was requested, acknowledges
   * it and throws a {@link CancelledError}; otherwise does nothing.
   */
  checkpoint(): void;
  /** Run a tool body with a start marker, an `execute_tool` span and the run's signal. Its result and errors pass through unchanged. */
  tool<T>(options: ToolCallOptions, body: (ctx: ToolContext) => T | Promise<T>): Promise<T>;
  /** The same, by hand, for code that cannot be wrapped. */
  startTool(options: ToolCallOptions): ToolCall;
  startModelCall(options: ModelCallOptions): ModelCall;
  readonly steering: SteeringApi;
  /** Unanswered tool calls were repaired before the history went back to the model. */
  repairHistory(options: { strategy: RepairStrategy; toolCallIds: readonly string[] }): void;
  /** A compensating action for an earlier commit finished. */
  compensate(options: { toolCallId: string; outcome: CompensationOutcome; toolName?: string }): void;
  /**
   * Record a child process of the run (one spawned in the run's or a tool's context is recorded by itself under
   * `afterstop/register`); it, and on Linux every process under it, gets an orphan marker if still alive the grace
   * period after the run's Stop (or its end, without a Stop).
   */
  trackProcess(child: TrackedProcess, options?: { graceMs?: number }): void;
  /** End the run span. Later calls do nothing. */
  end(options?: RunEndOptions): void;
}
