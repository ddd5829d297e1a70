import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, context, createTraceState, isSpanContextValid, trace, type Attributes, type Context, type HrTime, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { hrTime } from './otel-compat.js';
import { isAbortError } from './errors.js';
import { errorMessage, errorType } from './error-attributes.js';
import { markerWriterFor, type MarkerWriter } from './markers.js';
import { getPipeline } from './pipeline.js';
import { parseTraceParent } from './provider/propagator.js';
import { reportInternalError, sayOnce } from './safe.js';
import { httpCommitsDetected } from './commit-detection.js';
import { activeTool, contextWithTool, type CommitSink } from './run-context.js';
import type { KeyEndpoint } from './guard/index.js';
import type { CallOutcome } from './observe-call.js';
import type { CommitEvidence, ToolEffect } from './types.js';
import {
  ATTR_CANCEL_STATE,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_CANCEL_VIA,
  ATTR_MCP_HANDLER,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_SESSION_ID,
  ATTR_MCP_SIDE,
  ATTR_NETWORK_TRANSPORT,
  ATTR_TOOL_COMMIT_COUNT,
  ATTR_TOOL_COMMIT_EVIDENCE,
  ATTR_TOOL_COMMIT_PENDING,
  ATTR_TOOL_EFFECT,
  ATTR_TOOL_OUT_OF_SIGHT,
  ATTR_TOOL_SIGNAL_OBSERVED,
  ERROR_TYPE_CANCELLED,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  MCP_HANDLER_FINISHED_AFTER_CANCEL,
  MCP_HANDLER_STOPPED,
  MCP_METHOD_TOOLS_CALL,
  MCP_SIDE_SERVER,
  SPAN_MCP_CANCEL_RECEIVED,
  SPAN_TOOL_COMMIT,
} from './semconv.js';

/** How a cancel reached a server's handler (SEMCONV.md "MCP (server side)"). */
export type McpCancelVia = 'notification' | 'stream_closed';

/** What the MCP server's `tools/call` request says of the call. */
export interface McpServerCallOptions {
  toolName: string;
  /** The JSON-RPC id of the request. */
  requestId: string | number;
  /** The request's `params._meta`: its `traceparent` (and `tracestate`) are the client's tool span. */
  meta: unknown;
  effect: ToolEffect;
  /** `pipe` (stdio) or `tcp` (HTTP), when the transport is known. */
  transport: string | undefined;
  sessionId: string | undefined;
}

/**
 * An MCP tool's effect class, from the annotations its server lists it with: `readOnlyHint` is `read`,
 * `destructiveHint` is `irreversible`, `idempotentHint` is `idempotent`, in that order; anything else (no
 * annotations, hints false or absent) is `unknown`. Hints are the server's word, not a proof: a client takes them
 * only where the app gave no effect class of its own. (Both sides use it: the server's call, the client's
 * `tools/list` answers in auto/mcp-annotations.ts.)
 */
export function effectOfToolAnnotations(annotations: unknown): ToolEffect {
  if (annotations === null || typeof annotations !== 'object') return 'unknown';
  const a = annotations as Record<string, unknown>;
  if (a['readOnlyHint'] === true) return 'read';
  if (a['destructiveHint'] === true) return 'irreversible';
  if (a['idempotentHint'] === true) return 'idempotent';
  return 'unknown';
}

/**
 * The context a server's call runs under: the client's tool span, from the W3C trace context in the
 * request's `params._meta` (the key MCP reserves for it), else a trace of its own.
 */
function parentContext(meta: unknown): Context {
  const active = context.active();
  const carrier = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : undefined;
  const header = carrier?.['traceparent'];
  const span = typeof header === 'string' ? parseTraceParent(header) : null;
  if (span === null) return trace.deleteSpan(active);
  span.isRemote = true;
  const state = carrier?.['tracestate'];
  if (typeof state === 'string' && state !== '') span.traceState = createTraceState(state);
  return trace.setSpanContext(active, span);
}

/** The signal of a call whose handler has none yet. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * One `tools/call` an MCP server handles (the server side of a tool call): an `execute_tool` span whose
 * parent is the client's tool span, the HTTP requests of its handler detected as its commits (a commit
 * sink in the handler's context), the cancel it received as a marker, and at its end whether the handler
 * read its signal and whether it stopped or finished after the cancel. No run: the analyzer joins it to
 * the client's run through the trace.
 */
export class McpServerToolCall implements CommitSink {
  /** The handler runs in it: the span active, the call the commit sink. */
  readonly context: Context;
  readonly callId: string;
  private readonly span: Span;
  private readonly markers: MarkerWriter;
  private readonly requestId: string;
  private readonly effect: ToolEffect;
  private readonly args: unknown;
  private readonly detects: boolean;
  private commits = 0;
  private commitsAfterCancel = 0;
  private openRequests = 0;
  private ended = false;
  private outOfSight = false;
  private cancelVia: McpCancelVia | undefined;
  private signalObserved = false;
  /** What the tool's own callback threw, when the SDK turned it into an `isError` result (McpServer does). */
  private thrown: { error: unknown } | undefined;
  /** The signal handed to the handler (linked to the SDK's), once made. */
  private handlerSignal: AbortSignal | undefined;
  private ownKeyScope: string | undefined;
  declare keyEndpoints: Map<string, KeyEndpoint> | undefined;
  declare keyArgumentsDigest: string | undefined;
  declare workHosts: Set<string> | undefined;

  constructor(
    private readonly name: string,
    options: McpServerCallOptions,
    args: unknown,
  ) {
    const pipeline = getPipeline();
    this.requestId = String(options.requestId);
    this.callId = `mcp:${this.requestId}`;
    this.effect = options.effect;
    this.args = args;
    const attributes: Attributes = {
      [ATTR_GEN_AI_TOOL_NAME]: name,
      [ATTR_GEN_AI_TOOL_CALL_ID]: this.callId,
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
      [ATTR_TOOL_EFFECT]: this.effect,
      [ATTR_MCP_SIDE]: MCP_SIDE_SERVER,
      [ATTR_MCP_METHOD_NAME]: MCP_METHOD_TOOLS_CALL,
      [ATTR_JSONRPC_REQUEST_ID]: this.requestId,
    };
    if (options.transport !== undefined) attributes[ATTR_NETWORK_TRANSPORT] = options.transport;
    if (options.sessionId !== undefined) attributes[ATTR_MCP_SESSION_ID] = options.sessionId;
    const parent = parentContext(options.meta);
    this.span = pipeline.tracer.startSpan(`${GEN_AI_OPERATION_EXECUTE_TOOL} ${name}`, { kind: SpanKind.SERVER, startTime: hrTime(), attributes }, parent);
    // A client whose trace is not sampled (its traceparent's flags): the sampler drops the server's call with it. Said, never silent.
    if ((this.span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0 && isSpanContextValid(this.span.spanContext())) {
      sayOnce(
        'mcp-server-sampler',
        "an MCP tools/call came with a traceparent whose trace is not sampled, and the sampler dropped the server's tool call with it (its commits and the cancel it got): sample afterstop's spans always (OTEL_TRACES_SAMPLER=always_on in the server)",
      );
    }
    this.markers = markerWriterFor(this.span, pipeline.tracer, pipeline.markerProcessor);
    this.detects = httpCommitsDetected();
    this.context = contextWithTool(trace.setSpan(parent, this.span), this);
  }

  // --- CommitSink (the HTTP commit detector; the guard's keys). The server has no run: nothing fences it.

  get detectsCommits(): boolean {
    return this.detects;
  }
  get toolName(): string {
    return this.name;
  }
  get fenceable(): boolean {
    return false;
  }
  get callEnded(): boolean {
    return this.ended;
  }
  get givenCallId(): string | undefined {
    return undefined;
  }
  get conversationId(): string | undefined {
    return undefined;
  }
  get runKeyScope(): string {
    return (this.ownKeyScope ??= randomUUID());
  }
  get keyArguments(): unknown {
    return this.args;
  }
  runStopped(): boolean {
    return false;
  }
  runAbortReason(): unknown {
    return undefined;
  }
  commitPrevented(): void {}
  fencePassed(): void {}

  effectOutOfSight(how: string): void {
    if (this.ended || this.outOfSight) return;
    this.outOfSight = true;
    this.span.setAttribute(ATTR_TOOL_OUT_OF_SIGHT, how);
  }

  requestOpened(): void {
    this.openRequests++;
  }

  requestSettled(): void {
    if (this.openRequests > 0) this.openRequests--;
  }

  commitObserved(evidence: CommitEvidence, extra: Attributes): void {
    try {
      const attributes: Attributes = Object.assign({}, extra, {
        [ATTR_GEN_AI_TOOL_NAME]: this.name,
        [ATTR_GEN_AI_TOOL_CALL_ID]: this.callId,
        [ATTR_TOOL_EFFECT]: this.effect,
        [ATTR_TOOL_COMMIT_EVIDENCE]: evidence,
        [ATTR_MCP_SIDE]: MCP_SIDE_SERVER,
        [ATTR_JSONRPC_REQUEST_ID]: this.requestId,
        // The server's own view: its call was told to stop (requested) or not.
        [ATTR_CANCEL_STATE]: this.cancelVia === undefined ? 'none' : 'requested',
      });
      this.markers.write(SPAN_TOOL_COMMIT, attributes, this.context);
      if (!this.ended) this.commits++;
      if (this.cancelVia === undefined) return;
      this.commitsAfterCancel++;
      // A commit after the cancel is the evidence of a ghost: make sure it is written.
      const pipeline = getPipeline();
      void pipeline.flush(pipeline.config.flushTimeoutMs, true);
    } catch (error) {
      reportInternalError('mcp server commit', error);
    }
  }

  /** The handler's signal (linked to the SDK's `extra.signal`) once made: an MCP request the handler sends on carries its cancel. */
  get signal(): AbortSignal {
    return this.handlerSignal ?? NEVER_ABORTED;
  }

  get spanContext(): SpanContext {
    return this.span.spanContext();
  }

  get tracer(): Tracer {
    return getPipeline().tracer;
  }

  annotate(attributes: Attributes): void {
    if (this.ended) return;
    try {
      this.span.setAttributes(attributes);
    } catch (error) {
      reportInternalError('mcp server annotate', error);
    }
  }

  /** The server's tool says its own effect class (its annotations): what a request it sends on learns is not taken. */
  learnEffect(): void {}

  writeMarker(name: string, attributes: Attributes, time?: HrTime): void {
    try {
      const all: Attributes = Object.assign({}, attributes, { [ATTR_GEN_AI_TOOL_NAME]: this.name, [ATTR_GEN_AI_TOOL_CALL_ID]: this.callId, [ATTR_MCP_SIDE]: MCP_SIDE_SERVER });
      this.markers.write(name, all, this.context, undefined, time);
    } catch (error) {
      reportInternalError('mcp server marker', error);
    }
  }

  /** The cancel reached the server (once; the first way it came is the one recorded), now. */
  cancelReceived(via: McpCancelVia): void {
    if (this.ended || this.cancelVia !== undefined) return;
    this.cancelVia = via;
    try {
      this.markers.write(SPAN_MCP_CANCEL_RECEIVED, { [ATTR_JSONRPC_REQUEST_ID]: this.requestId, [ATTR_MCP_CANCEL_VIA]: via, [ATTR_GEN_AI_TOOL_CALL_ID]: this.callId, [ATTR_MCP_SIDE]: MCP_SIDE_SERVER }, this.context);
      const pipeline = getPipeline();
      void pipeline.flush(pipeline.config.flushTimeoutMs, true);
    } catch (error) {
      reportInternalError('mcp server cancel', error);
    }
  }

  /**
   * The signal to hand the handler in place of the SDK's `extra.signal`: aborted with the same reason when
   * it is (after the cancel's marker), and telling whether the handler read it or listened to it (the
   * SDK's own reads of its signal do not count). `via` says, when it aborts, how the cancel came.
   */
  watchSignal(sdkSignal: AbortSignal, via: () => McpCancelVia): AbortSignal {
    const controller = new AbortController();
    const linked = controller.signal;
    // The handler's reads only: once the call ended, afterstop's own (isAbortError reads the reason) do not count.
    const observe = (): void => {
      if (!this.ended) this.signalObserved = true;
    };
    const proto = AbortSignal.prototype;
    const target = EventTarget.prototype;
    Object.defineProperties(linked, {
      aborted: {
        configurable: true,
        get: () => {
          observe();
          return Reflect.get(proto, 'aborted', linked) as boolean;
        },
      },
      reason: {
        configurable: true,
        get: () => {
          observe();
          return Reflect.get(proto, 'reason', linked);
        },
      },
      throwIfAborted: {
        configurable: true,
        writable: true,
        value: function throwIfAborted(): void {
          observe();
          proto.throwIfAborted.call(linked);
        },
      },
      addEventListener: {
        configurable: true,
        writable: true,
        value: function addEventListener(...args: Parameters<EventTarget['addEventListener']>): void {
          observe();
          target.addEventListener.apply(linked, args);
        },
      },
      onabort: {
        configurable: true,
        get: () => Reflect.get(proto, 'onabort', linked),
        set: (fn: unknown) => {
          observe();
          Reflect.set(proto, 'onabort', fn, linked);
        },
      },
    });
    const abort = (): void => {
      this.cancelReceived(via());
      controller.abort(Reflect.get(proto, 'reason', sdkSignal));
    };
    if (Reflect.get(proto, 'aborted', sdkSignal) === true) abort();
    else target.addEventListener.call(sdkSignal, 'abort', abort, { once: true });
    this.handlerSignal = linked;
    return linked;
  }

  /** The tool's callback threw `error` (the SDK makes it a result with `isError`: the span's end is told the error). */
  toolThrew(error: unknown): void {
    if (!this.ended) this.thrown = { error };
  }

  /** The handler ended (once): its span ends, saying what the cancel, if any, became. */
  end(ended: CallOutcome): void {
    if (this.ended) return;
    this.ended = true;
    const span = this.span;
    const isErrorResult = 'value' in ended && (ended.value as { isError?: unknown } | null)?.isError === true;
    const outcome: CallOutcome = isErrorResult && this.thrown !== undefined ? this.thrown : ended;
    try {
      span.setAttribute(ATTR_TOOL_COMMIT_COUNT, this.commits);
      if (this.openRequests > 0) span.setAttribute(ATTR_TOOL_COMMIT_PENDING, this.openRequests);
      if (this.handlerSignal !== undefined) span.setAttribute(ATTR_TOOL_SIGNAL_OBSERVED, this.signalObserved);
      const signal = this.handlerSignal;
      const byCancel = 'error' in outcome && signal !== undefined && Reflect.get(AbortSignal.prototype, 'aborted', signal) === true && isAbortError(outcome.error, signal);
      if (this.cancelVia !== undefined) {
        span.setAttribute(ATTR_MCP_CANCEL_VIA, this.cancelVia);
        // Stopped: ended by the abort, or its signal was aborted, it heeded it and committed nothing after the cancel.
        // (A cancel that never aborted its signal, a stream closed that the SDK did not pass on, could not stop it.)
        const told = signal !== undefined && Reflect.get(AbortSignal.prototype, 'aborted', signal) === true;
        const stopped = byCancel || (told && this.signalObserved && this.commitsAfterCancel === 0);
        span.setAttribute(ATTR_MCP_HANDLER, stopped ? MCP_HANDLER_STOPPED : MCP_HANDLER_FINISHED_AFTER_CANCEL);
      }
      if (byCancel) {
        span.setAttribute(ATTR_ERROR_TYPE, ERROR_TYPE_CANCELLED);
        span.setStatus({ code: SpanStatusCode.ERROR, message: ERROR_TYPE_CANCELLED });
      } else if ('error' in outcome) {
        span.setAttribute(ATTR_ERROR_TYPE, errorType(outcome.error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(outcome.error) });
      }
    } catch (error) {
      reportInternalError('mcp server tool end', error);
    } finally {
      span.end(hrTime());
    }
  }
}

/** Inside a server call's handler: the tool's callback threw `error` (see McpServerToolCall.toolThrew). */
export function mcpServerToolThrew(error: unknown): void {
  const call = activeTool();
  if (call instanceof McpServerToolCall) call.toolThrew(error);
}

/** A server's `tools/call` as a tool call; undefined when telemetry failed (the handler then runs as without afterstop). */
export function startMcpServerCall(options: McpServerCallOptions, args: unknown): McpServerToolCall | undefined {
  try {
    return new McpServerToolCall(options.toolName, options, args);
  } catch (error) {
    reportInternalError('mcp server tool start', error);
    return undefined;
  }
}
