import { activeTool, cancelUndelivered, contextWithRun, markCancelUndelivered, type CommitSink } from './run-context.js';
import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, context, isSpanContextValid, trace, type Attributes, type Context, type HrTime, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { hrTime, hrTimeDuration, hrTimeToMilliseconds, isTracingSuppressed } from './otel-compat.js';
import { CancelledError, DeadlineExceededError, isAbortError } from './errors.js';
import { deadlineFrom, guard } from './guard/index.js';
import { errorMessage, errorType } from './error-attributes.js';
import type { DeferredEntry, DeferredMarker, Pipeline, RunScope } from './internal-types.js';
import { markerWriterFor, type MarkerWriter } from './markers.js';
import { startModelCall } from './model.js';
import { ProcessTracker } from './process.js';
import { recordCompensation, recordHistoryRepair } from './repair.js';
import { recordCancelAck, recordCancelRequest } from './live-metrics.js';
import { reportInternalError, safely, sayOnce } from './safe.js';
import {
  ATTR_CANCEL_DEADLINE_MS,
  ATTR_CANCEL_DELIVERED,
  ATTR_CANCEL_ID,
  ATTR_CANCEL_OUTCOME,
  ATTR_CANCEL_REASON,
  ATTR_CANCEL_SOURCE,
  ATTR_CANCEL_UNSETTLED,
  ATTR_ERROR_TYPE,
  ATTR_FRAMEWORK,
  ATTR_RUN_UNINSTRUMENTED,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_INFLIGHT_MODEL_CALLS,
  ATTR_INFLIGHT_TOOL_CALLS,
  ATTR_RUN_ID,
  ATTR_RUN_OUTCOME,
  CANCEL_REASON_MAX_LENGTH,
  GEN_AI_OPERATION_INVOKE_AGENT,
  SPAN_CANCEL_ACK,
  SPAN_CANCEL_REQUEST,
  SPAN_CANCEL_SETTLE,
} from './semconv.js';
import { steeringFor } from './steer.js';
import { InstrumentedToolCall, runTool } from './tool.js';
import { uninstrumentedLoaded } from './uninstrumented.js';
import type {
  AcknowledgeOptions,
  CancelOptions,
  CancelSource,
  CancelState,
  CompensationOutcome,
  ModelCall,
  ModelCallOptions,
  RepairStrategy,
  Run,
  RunEndOptions,
  RunOptions,
  SteeringApi,
  ToolCall,
  ToolCallOptions,
  ToolContext,
  TrackedProcess,
} from './types.js';

const RESOLVED = Promise.resolve();

/** The source of a cancel that comes from an abort with this reason: `timeout` for a TimeoutError, else `fallback`. */
export function cancelSourceOf(reason: unknown, fallback: CancelSource = 'user'): CancelSource {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError' ? 'timeout' : fallback;
}

function reasonText(reason: unknown): string | undefined {
  if (reason === undefined || reason === null) return undefined;
  const text = typeof reason === 'string' ? reason : errorMessage(reason);
  return cutOnCodePoint(text, CANCEL_REASON_MAX_LENGTH);
}

/**
 * At most `max` UTF-16 units, never ending in half a surrogate pair (an emoji cut in two is a lone
 * surrogate, which no JSON reader takes as text), and any lone surrogate of the input made U+FFFD.
 */
export function cutOnCodePoint(text: string, max: number): string {
  let cut = text;
  if (cut.length > max) {
    const last = cut.charCodeAt(max - 1);
    cut = cut.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
  }
  return (cut as string & { toWellFormed(): string }).toWellFormed();
}

/**
 * One agent run (one user turn) and its cancel state machine:
 * none → requested (cancel) → acknowledged (the loop stopped); then settled
 * when everything that was in flight at the request has ended. The run span
 * and every span it starts end exactly once.
 */
export class InstrumentedRun implements Run, RunScope {
  readonly id: string;
  readonly tracer: Tracer;
  readonly context: Context;
  readonly common: Attributes;
  readonly steering: SteeringApi;
  private readonly span: Span;
  private readonly spanContext: SpanContext;
  private readonly markers: MarkerWriter;
  private readonly controller = new AbortController();
  private state: CancelState = 'none';
  private cancelId: string | undefined;
  /** When the cancel was requested: the request marker's time, from which the ack's latency is counted (live-metrics.ts). */
  private cancelAt: HrTime | undefined;
  private ackAt: HrTime | undefined;
  private cancelFlush: Promise<void> = RESOLVED;
  private ended = false;
  /**
   * What is in flight, counted: a call's start number (`childStarted`) tells whether it was in flight at
   * the cancel request when it ends. (Counters, not sets of the calls: a set's add and delete on every
   * call, and the rehashing they cause, cost more than the rest of the bookkeeping.)
   */
  private inflightTools = 0;
  private inflightModels = 0;
  private childrenStarted = 0;
  /** After a cancel request: the children started before it that have not ended yet. */
  private settle: { startedBefore: number; waiting: number; timer: NodeJS.Timeout | undefined } | undefined;
  private readonly settleDeadlineMs: number | false;
  private readonly processes: ProcessTracker;
  private readonly detachSignal: () => void;
  /** The guard's deadline (ms), when the run has one, and its timer until it fires or the run ends. */
  readonly deadlineMs: number | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** The cancel being made is the deadline's. */
  private byDeadline = false;
  /**
   * The run's signal reached what runs the run: a run the app started holds it (`run.signal`); a
   * framework's run (run-start.ts) only once afterstop handed it to a framework or SDK call
   * (run-signal.ts). A deadline cancel before that is recorded as not delivered.
   */
  private signalDelivered = true;
  /** What to undo when the run ends (the deadline's signal links, run-signal.ts). */
  private readonly endHooks: (() => void)[] = [];
  /** The tool call whose body started this run (a sub-agent's run), if the guard is on: the fence follows it up. */
  private readonly parentTool: CommitSink | undefined;
  private ownKeyScope: string | undefined;

  constructor(
    private readonly pipeline: Pipeline,
    private readonly options: RunOptions,
  ) {
    this.tracer = pipeline.tracer;
    const agent = options.agentName;
    this.span = this.tracer.startSpan(
      agent ? `${GEN_AI_OPERATION_INVOKE_AGENT} ${agent}` : GEN_AI_OPERATION_INVOKE_AGENT,
      {
        kind: SpanKind.INTERNAL,
        startTime: hrTime(),
        attributes: Object.assign({}, options.attributes, { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_INVOKE_AGENT }),
      },
      context.active(),
    );
    this.spanContext = this.span.spanContext();
    // A sampler that drops the run drops its cancel markers with it (they follow the run's decision): say so.
    if (isSpanContextValid(this.spanContext) && (this.spanContext.traceFlags & TraceFlags.SAMPLED) === 0 && !isTracingSuppressed(context.active())) {
      sayOnce(
        'sampler',
        "the trace sampler dropped a run, and with it the run's Stop markers (cancel request, ack, commits): Stop is not measured for sampled-out runs. Sample afterstop's runs always (OTEL_TRACES_SAMPLER=parentbased_always_on, or a sampler that keeps spans of the afterstop tracer).",
      );
    }
    this.id = options.runId ?? (isSpanContextValid(this.spanContext) ? this.spanContext.spanId : randomUUID());
    this.common = { [ATTR_RUN_ID]: this.id, [ATTR_FRAMEWORK]: options.framework ?? 'manual' };
    if (options.conversationId !== undefined) this.common[ATTR_GEN_AI_CONVERSATION_ID] = options.conversationId;
    if (agent !== undefined) this.common[ATTR_GEN_AI_AGENT_NAME] = agent;
    this.span.setAttributes(this.common);
    const uninstrumented = uninstrumentedLoaded();
    if (uninstrumented !== undefined) this.span.setAttribute(ATTR_RUN_UNINSTRUMENTED, uninstrumented);
    // (Read before the run's context drops the tool: a run started in a tool body is that call's sub-agent.)
    this.parentTool = activeTool();
    this.context = trace.setSpan(contextWithRun(context.active(), this), this.span);
    this.markers = markerWriterFor(this.span, this.tracer, pipeline.markerProcessor);
    this.settleDeadlineMs = options.settleDeadlineMs ?? pipeline.config.settleDeadlineMs;
    this.steering = steeringFor(this);
    this.processes = new ProcessTracker(this);
    this.detachSignal = this.linkSignal(options.signal);
    this.deadlineMs = options.deadlineMs !== undefined ? deadlineFrom(options.deadlineMs, 'deadlineMs') : guard().deadlineMs;
    if (this.deadlineMs !== undefined) {
      const ms = this.deadlineMs;
      // Never keeps the process alive: a run the app abandoned is not waited for.
      this.deadlineTimer = setTimeout(() => this.deadlinePassed(ms), ms);
      this.deadlineTimer.unref();
    }
    // Apps pass these around as callbacks (`onClick={run.cancel}`): bind.
    for (const method of ['cancel', 'acknowledge', 'checkpoint', 'tool', 'startTool', 'startModelCall', 'repairHistory', 'compensate', 'trackProcess', 'end'] as const) {
      (this as Record<typeof method, unknown>)[method] = (this[method] as (...args: never[]) => unknown).bind(this);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelState(): CancelState {
    return this.state;
  }

  get ackTime(): HrTime | undefined {
    return this.ackAt;
  }

  get keyScope(): string {
    return (this.ownKeyScope ??= randomUUID());
  }

  /**
   * Held only while the parent call is open: work its body left behind (a scheduler made lazily in it)
   * keeps its context, and a run such work starts later, for another user, is not the stopped call's.
   */
  parentStopped(): boolean {
    const parent = this.parentTool;
    return parent !== undefined && !parent.callEnded && parent.fenceable && parent.runStopped();
  }

  parentAbortReason(): unknown {
    return this.parentTool?.runAbortReason();
  }

  /** The run has ended. */
  get hasEnded(): boolean {
    return this.ended;
  }

  /** A framework's run: its signal is nobody's until afterstop hands it to a framework call. */
  startedForFramework(): void {
    if (this.state === 'none') this.signalDelivered = false;
  }

  /** The run's signal was handed to a framework or SDK call (run-signal.ts): a cancel reaches it. */
  signalHandedOver(): void {
    this.signalDelivered = true;
    markCancelUndelivered(this, false);
  }

  /** Call `fn` when the run ends (at once if it has). */
  whenEnded(fn: () => void): void {
    if (this.ended) safely('run end hook', fn, undefined);
    else this.endHooks.push(fn);
  }

  /** Attributes the framework reported for the run as a whole (the Claude Agent SDK's cost), on the run span. */
  annotate(attributes: Attributes): void {
    if (!this.ended) safely('run annotate', () => this.span.setAttributes(attributes), undefined);
  }

  get flushTimeoutMs(): number {
    return this.pipeline.config.flushTimeoutMs;
  }

  // --- RunScope

  marker(name: string, attributes: Attributes, parent?: Context, time?: HrTime): void {
    if (parent === undefined) this.markers.write(name, attributes, this.context, this.spanContext, time);
    else this.markers.write(name, attributes, parent, undefined, time);
  }

  deferMarker(marker: DeferredMarker): DeferredEntry | undefined {
    return this.pipeline.deferMarker?.(marker);
  }

  withdrawMarker(entry: DeferredEntry): void {
    this.pipeline.withdrawMarker?.(entry);
  }

  flushEvidence(): Promise<void> {
    // A flush for the evidence: it does not wait on a collector found failing (queue.ts flushSoon).
    return this.pipeline.flush(this.pipeline.config.flushTimeoutMs, true);
  }

  childStarted(kind: 'tool' | 'model'): number {
    if (kind === 'tool') this.inflightTools++;
    else this.inflightModels++;
    return this.childrenStarted++;
  }

  childEnded(kind: 'tool' | 'model', started: number): void {
    if (kind === 'tool') this.inflightTools--;
    else this.inflightModels--;
    const settle = this.settle;
    if (settle !== undefined && started < settle.startedBefore && --settle.waiting === 0) this.writeSettle();
  }

  // --- Run

  cancel(options: CancelOptions = {}): Promise<void> {
    if (this.state !== 'none' || this.ended) return this.cancelFlush;
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    try {
      this.state = 'requested';
      this.cancelId = randomUUID();
      const attributes: Attributes = Object.assign({}, this.common, {
        [ATTR_CANCEL_ID]: this.cancelId,
        [ATTR_CANCEL_SOURCE]: options.source ?? 'user',
      });
      Object.assign(attributes, this.inflightCounts());
      const reason = reasonText(options.reason);
      if (reason !== undefined) attributes[ATTR_CANCEL_REASON] = reason;
      if (this.byDeadline && this.deadlineMs !== undefined) {
        attributes[ATTR_CANCEL_DEADLINE_MS] = this.deadlineMs;
        // Whether what runs the run held its signal; if not, the deadline passed and nobody was told.
        attributes[ATTR_CANCEL_DELIVERED] = this.signalDelivered;
        if (!this.signalDelivered) markCancelUndelivered(this, true);
      }
      // Counted before the marker is written: the ack's latency (from cancelAt) is recorded only with its request.
      this.cancelAt = hrTime();
      recordCancelRequest(this.common, options.source ?? 'user');
      this.marker(SPAN_CANCEL_REQUEST, attributes, undefined, this.cancelAt);
      this.startSettle();
      // The run's processes' grace period starts at the Stop.
      this.processes.runStopped();
    } catch (error) {
      reportInternalError('cancel', error);
    }
    // The request marker is queued; now stop the run, and only then spend time
    // on the flush that puts the marker on disk or on the wire. A cancel asked
    // for again from an abort listener gets this same promise.
    let flushed: () => void = () => {};
    this.cancelFlush = new Promise<void>((resolve) => (flushed = resolve));
    if (!this.controller.signal.aborted) {
      this.controller.abort(this.byDeadline && this.deadlineMs !== undefined ? new DeadlineExceededError(this.deadlineMs) : new CancelledError('The run was cancelled', { cancelId: this.cancelId }));
    }
    void this.flushEvidence().then(flushed, flushed);
    return this.cancelFlush;
  }

  acknowledge(options: AcknowledgeOptions = {}): void {
    if (this.state !== 'requested') return;
    this.state = 'acknowledged';
    // The ack's latency is the markers' A − C, to the nanosecond, as the report computes it.
    const at = hrTime();
    this.ackAt = at;
    safely(
      'acknowledge',
      () =>
        this.marker(
          SPAN_CANCEL_ACK,
          {
            ...this.common,
            [ATTR_CANCEL_ID]: this.cancelId ?? '',
            [ATTR_CANCEL_OUTCOME]: options.outcome ?? 'stopped',
            ...this.inflightCounts(),
          },
          undefined,
          at,
        ),
      undefined,
    );
    if (this.cancelAt !== undefined) recordCancelAck(this.common, hrTimeToMilliseconds(hrTimeDuration(this.cancelAt, at)) / 1000);
  }

  checkpoint(): void {
    if (this.state === 'none') return;
    this.acknowledge();
    throw new CancelledError('The run was cancelled', { cancelId: this.cancelId });
  }

  tool<T>(options: ToolCallOptions, body: (ctx: ToolContext) => T | Promise<T>): Promise<T> {
    return runTool(this, options, body);
  }

  startTool(options: ToolCallOptions): ToolCall {
    try {
      return new InstrumentedToolCall(this, options);
    } catch (error) {
      reportInternalError('tool start', error);
      const signal = this.signal;
      return { signal, callId: options.callId ?? '', commit: () => RESOLVED, setResult() {}, end() {} };
    }
  }

  startModelCall(options: ModelCallOptions): ModelCall {
    return startModelCall(this, options);
  }

  repairHistory(options: { strategy: RepairStrategy; toolCallIds: readonly string[] }): void {
    recordHistoryRepair(this, options.strategy, options.toolCallIds);
  }

  compensate(options: { toolCallId: string; outcome: CompensationOutcome; toolName?: string }): void {
    recordCompensation(this, options.toolCallId, options.outcome, options.toolName);
  }

  trackProcess(child: TrackedProcess, options: { graceMs?: number } = {}): void {
    this.processes.spawned(child, options.graceMs ?? this.pipeline.config.processGraceMs);
  }

  end(options: RunEndOptions = {}): void {
    if (this.ended) return;
    // A run that ends by its cancellation (an abort error) is a loop that stopped:
    // that is the acknowledge. One that completes after a Stop ran on: no acknowledge.
    if (this.state === 'requested' && 'error' in options && safely('end', () => isAbortError(options.error, this.signal), false)) {
      this.acknowledge();
    }
    this.ended = true;
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    this.detachSignal();
    for (const detach of this.endHooks.splice(0)) safely('run end hook', detach, undefined);
    safely('run end', () => this.finish(options), undefined);
    this.processes.runEnded();
  }

  // --- internals

  /** The guard's deadline passed with the run still going: it is cancelled, source `timeout`. */
  private deadlinePassed(ms: number): void {
    this.deadlineTimer = undefined;
    if (this.ended || this.state !== 'none') return;
    this.byDeadline = true;
    void this.cancel({ source: 'timeout', reason: `the run passed its deadline of ${ms} ms (afterstop guard)` });
  }

  private finish(options: RunEndOptions): void {
    try {
      const hasError = 'error' in options;
      // A deadline cancel that reached nothing did not cancel the run: it ended as it would have.
      const cancelled = this.state !== 'none' && !cancelUndelivered(this);
      const outcome = options.outcome ?? (cancelled ? 'cancelled' : hasError ? 'failed' : 'completed');
      this.span.setAttribute(ATTR_RUN_OUTCOME, outcome);
      // Packages loaded during the run count too (a framework imported lazily).
      const uninstrumented = uninstrumentedLoaded();
      if (uninstrumented !== undefined) this.span.setAttribute(ATTR_RUN_UNINSTRUMENTED, uninstrumented);
      if (hasError && !(cancelled && isAbortError(options.error, this.signal))) {
        this.span.setAttribute(ATTR_ERROR_TYPE, errorType(options.error));
        this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(options.error) });
      }
    } finally {
      this.span.end(hrTime());
    }
  }

  private inflightCounts(): Attributes {
    return {
      [ATTR_INFLIGHT_TOOL_CALLS]: this.inflightTools,
      [ATTR_INFLIGHT_MODEL_CALLS]: this.inflightModels,
    };
  }

  private startSettle(): void {
    if (this.settleDeadlineMs === false) return;
    const waiting = this.inflightTools + this.inflightModels;
    this.settle = { startedBefore: this.childrenStarted, waiting, timer: undefined };
    if (waiting === 0) {
      this.writeSettle();
      return;
    }
    const timer = setTimeout(() => this.writeSettle(), this.settleDeadlineMs);
    timer.unref();
    this.settle.timer = timer;
  }

  /** Once: every child in flight at the request has ended, or the deadline passed. */
  private writeSettle(): void {
    const settle = this.settle;
    if (!settle) return;
    this.settle = undefined;
    if (settle.timer !== undefined) clearTimeout(settle.timer);
    safely(
      'settle',
      () =>
        this.marker(SPAN_CANCEL_SETTLE, {
          ...this.common,
          [ATTR_CANCEL_ID]: this.cancelId ?? '',
          [ATTR_CANCEL_UNSETTLED]: settle.waiting,
        }),
      undefined,
    );
  }

  /** An abort of the app's own signal is a cancel request, unless `cancel()` came first. */
  private linkSignal(signal: AbortSignal | undefined): () => void {
    if (!signal) return () => {};
    const onAbort = (): void => {
      void this.cancel({
        source: cancelSourceOf(signal.reason, this.options.cancelSource ?? 'user'),
        reason: reasonText(signal.reason),
      });
    };
    if (signal.aborted) {
      onAbort();
      return () => {};
    }
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }
}
