import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Context, type HrTime, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { hrTime } from './otel-compat.js';
import { isAbortError } from './errors.js';
import type { DeferredEntry, DeferredMarker, RunScope } from './internal-types.js';
import { errorType, errorMessage } from './error-attributes.js';
import { recordCommitAfterStop, recordCommitPrevented, recordOrphanedCall } from './live-metrics.js';
import { httpGuardOn, type KeyEndpoint } from './guard/index.js';
import { reportInternalError, safely } from './safe.js';
import { contentEnabled, setContent } from './content.js';
import { observeCall, type CallOutcome } from './observe-call.js';
import {
  ATTR_CANCEL_STATE,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_TOOL_COMMIT_EVIDENCE,
  ATTR_TOOL_EFFECT,
  ATTR_TOOL_IDEMPOTENCY_KEY,
  ATTR_TOOL_KIND,
  ATTR_TOOL_BODY_DETACHED,
  ATTR_TOOL_COMMIT_COUNT,
  ATTR_TOOL_COMMIT_PENDING,
  ATTR_TOOL_OUT_OF_SIGHT,
  ATTR_TOOL_RESULT,
  ATTR_TOOL_SIGNAL_OBSERVED,
  ERROR_TYPE_CANCELLED,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  SPAN_TOOL_COMMIT,
  SPAN_TOOL_COMMIT_PREVENTED,
  SPAN_TOOL_FENCE_PASSED,
  SPAN_TOOL_START,
} from './semconv.js';
import { detectHttpCommitsForManualTools, httpCommitsDetected } from './commit-detection.js';
import { traceContextOn } from './request-span.js';
import { contextWithSpanAndTool, type CommitSink } from './run-context.js';
import type { CommitEvidence, Run, ToolCall, ToolCallOptions, ToolContext, ToolEffect, ToolEndOptions, ToolResultDelivery } from './types.js';

const RESOLVED = Promise.resolve();

/** One tool execution: a start marker, an `execute_tool` span, commit markers. Ends once. */
export class InstrumentedToolCall implements ToolCall, CommitSink, DeferredMarker {
  readonly callId: string;
  /** A context whose active span is the tool span: the body runs in it. */
  readonly context: Context;
  private readonly span: Span;
  private effect: ToolEffect;
  /** The caller gave the effect class (what the call learns elsewhere does not replace it). */
  private readonly effectGiven: boolean;
  private readonly idempotencyKey: string | undefined;
  private readonly name: string;
  private readonly kind: ToolCallOptions['kind'];
  private readonly startTime: HrTime;
  private result: ToolResultDelivery | undefined;
  private ended = false;
  /** Commit markers written before the span ended (its afterstop.tool.commit.count). */
  private commits = 0;
  /** Its mutating requests whose outcome is not known yet (afterstop.tool.commit.pending at the span's end). */
  private openRequests = 0;
  private inflight = true;
  /** Its effect was handed out of afterstop's sight (effectOutOfSight). */
  private outOfSight = false;
  /** It started before its run was stopped (in flight at Stop, if it ends after). */
  private readonly startedBeforeStop: boolean;
  /** A commit marker of it was written after Stop (a ghost, known or possible, already). */
  private committedAfterStop = false;
  /** Its start number in the run (RunScope.childStarted). */
  private readonly started: number;
  /** Its HTTP requests' commits are detected (`detectCommits`). */
  private readonly detects: boolean;
  /** Its id is the one the model or the app gave (not one afterstop made up). */
  private readonly callIdGiven: boolean;
  /** Its start marker, while it waits for the next export. */
  private readonly deferred: DeferredEntry | undefined;
  /** Its arguments as given (the guard's keys digest them). */
  private readonly args: unknown;

  constructor(
    private readonly run: RunScope,
    options: ToolCallOptions,
  ) {
    this.callId = options.callId ?? `call_${randomUUID()}`;
    this.callIdGiven = options.callId !== undefined;
    this.args = options.arguments;
    this.effect = options.effect ?? 'unknown';
    this.effectGiven = options.effect !== undefined;
    this.idempotencyKey = options.idempotencyKey;
    this.kind = options.kind;
    this.name = options.name;
    this.startTime = hrTime();
    this.startedBeforeStop = run.cancelState === 'none';
    // The start marker tells of a call that may never end: with afterstop's own queue it is written only if
    // the call is still open when spans are next exported (a call that ended by then has its span).
    this.deferred = run.deferMarker(this);
    if (this.deferred === undefined) this.writeDeferred();
    // Object.assign, not spread: V8 copies these dotted-key objects about ten times faster.
    const attributes: Attributes = Object.assign({}, run.common, {
      [ATTR_GEN_AI_TOOL_NAME]: options.name,
      [ATTR_GEN_AI_TOOL_CALL_ID]: this.callId,
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
      [ATTR_TOOL_EFFECT]: this.effect,
    });
    if (this.idempotencyKey !== undefined) attributes[ATTR_TOOL_IDEMPOTENCY_KEY] = this.idempotencyKey;
    if (options.kind === 'step' || options.kind === 'compensate') attributes[ATTR_TOOL_KIND] = options.kind;
    setContent(attributes, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, options.arguments, 'tool.arguments', options.name);
    this.span = run.tracer.startSpan(`${GEN_AI_OPERATION_EXECUTE_TOOL} ${options.name}`, { kind: SpanKind.INTERNAL, startTime: this.startTime, attributes }, run.context);
    // With detection on, the HTTP commit detector (commit-detection.ts) finds this call in the body's context.
    // (While the http-commits instrumentation is on, its subscription serves; the auto-instrumentations ask only then.)
    this.detects = options.detectCommits === true;
    if (this.detects && !httpCommitsDetected()) detectHttpCommitsForManualTools();
    // The guard's fence and keys, and trace context on its requests (request-span.ts), find the call in the body's context too, detection or not.
    this.context = this.detects || httpGuardOn() || traceContextOn() ? contextWithSpanAndTool(run.context, this.span, this) : trace.setSpan(run.context, this.span);
    this.started = run.childStarted('tool');
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }

  // --- CommitSink (the commit detector and the guard)

  get detectsCommits(): boolean {
    return this.detects;
  }

  get toolName(): string {
    return this.name;
  }

  get callEnded(): boolean {
    return this.ended;
  }

  get fenceable(): boolean {
    return this.kind !== 'compensate';
  }

  get conversationId(): string | undefined {
    const id = this.run.common[ATTR_GEN_AI_CONVERSATION_ID];
    return typeof id === 'string' ? id : undefined;
  }

  get runKeyScope(): string {
    return this.run.keyScope;
  }

  get keyArguments(): unknown {
    return this.args;
  }

  get givenCallId(): string | undefined {
    return this.callIdGiven ? this.callId : undefined;
  }

  runStopped(): boolean {
    return this.run.cancelState !== 'none' || this.run.parentStopped();
  }

  runAbortReason(): unknown {
    return this.run.cancelState !== 'none' ? this.run.signal.reason : this.run.parentAbortReason();
  }

  commitPrevented(extra: Attributes): void {
    try {
      const attributes: Attributes = Object.assign(this.identity(extra), {
        [ATTR_TOOL_EFFECT]: this.effect,
        [ATTR_CANCEL_STATE]: this.run.cancelState,
      });
      this.run.marker(SPAN_TOOL_COMMIT_PREVENTED, attributes, this.context);
      recordCommitPrevented(this.run.common, this.name, this.effect);
    } catch (error) {
      reportInternalError('tool commit prevented', error);
    }
  }

  fencePassed(extra: Attributes): void {
    try {
      const attributes: Attributes = Object.assign(this.identity(extra), { [ATTR_CANCEL_STATE]: this.run.cancelState });
      this.run.marker(SPAN_TOOL_FENCE_PASSED, attributes, this.context);
    } catch (error) {
      reportInternalError('tool fence passed', error);
    }
  }

  effectOutOfSight(how: string): void {
    // On the span (the call's effect is the other side's from now on); the first says it.
    if (this.ended || this.outOfSight) return;
    this.outOfSight = true;
    try {
      this.span.setAttribute(ATTR_TOOL_OUT_OF_SIGHT, how);
    } catch (error) {
      reportInternalError('tool out of sight', error);
    }
  }

  get spanContext(): SpanContext {
    return this.span.spanContext();
  }

  get tracer(): Tracer {
    return this.run.tracer;
  }

  annotate(attributes: Attributes): void {
    if (this.ended) return;
    try {
      this.span.setAttributes(attributes);
    } catch (error) {
      reportInternalError('tool annotate', error);
    }
  }

  learnEffect(effect: ToolEffect): void {
    if (this.ended || this.effectGiven || effect === this.effect) return;
    this.effect = effect;
    this.annotate({ [ATTR_TOOL_EFFECT]: effect });
  }

  writeMarker(name: string, attributes: Attributes, time?: HrTime): void {
    try {
      this.run.marker(name, this.identity(attributes), this.context, time);
    } catch (error) {
      reportInternalError('tool marker', error);
    }
  }

  /** The start marker, at the call's start: now, or at the first export while the call is still open. */
  writeDeferred(): void {
    // The effect class is on the start marker too: a call that never ends (the process died) is still known by it.
    const start: Attributes = Object.assign(this.identity(), { [ATTR_TOOL_EFFECT]: this.effect });
    // A step's (or compensation's) kind is on its start marker too: a call that never ends is still known as one.
    if (this.kind === 'step' || this.kind === 'compensate') start[ATTR_TOOL_KIND] = this.kind;
    this.run.marker(SPAN_TOOL_START, start, undefined, this.startTime);
  }

  /** `extra`, then the run's common attributes and the call's name and id: what its markers carry. (Made when a marker is written, not per call.) */
  private identity(extra?: Attributes): Attributes {
    return Object.assign({}, extra, this.run.common, { [ATTR_GEN_AI_TOOL_NAME]: this.name, [ATTR_GEN_AI_TOOL_CALL_ID]: this.callId });
  }

  // Tool bodies destructure their context (`async ({ signal, commit }) => …`): the
  // methods are handed out bound, and bound only when asked for (most bodies never do).
  // (`declare`: no field is initialised per call; most calls never bind.)
  declare private boundCommit: (() => Promise<void>) | undefined;
  declare private boundSetResult: ((result: ToolResultDelivery) => void) | undefined;
  declare private boundEnd: ((options?: ToolEndOptions) => void) | undefined;
  /** The places of its requests' idempotency keys, by endpoint (guard/idempotency-key.ts); made by the first keyed request. */
  declare keyEndpoints: Map<string, KeyEndpoint> | undefined;
  /** The hosts its body sent a mutating request to before the Stop (guard/fence-passage.ts): its cancel calls there pass the fence. */
  declare workHosts: Set<string> | undefined;
  /** The digest of its arguments for its keys, once made. */
  declare keyArgumentsDigest: string | undefined;

  get commit(): () => Promise<void> {
    return (this.boundCommit ??= () => this.writeCommit('manual'));
  }

  get setResult(): (result: ToolResultDelivery) => void {
    return (this.boundSetResult ??= (result) => {
      this.result = result;
    });
  }

  get end(): (options?: ToolEndOptions) => void {
    return (this.boundEnd ??= (options) => this.finishCall(options));
  }

  /** What the body returned: recorded only when content capture is on. Never throws. */
  recordOutput(value: unknown): void {
    if (!this.ended) this.writeOutput(value);
  }

  private writeOutput(value: unknown): void {
    if (value === undefined || !contentEnabled()) return;
    const attributes: Attributes = {};
    setContent(attributes, ATTR_GEN_AI_TOOL_CALL_RESULT, value, 'tool.result', this.name);
    this.span.setAttributes(attributes);
  }

  requestOpened(): void {
    this.openRequests++;
  }

  requestSettled(): void {
    if (this.openRequests > 0) this.openRequests--;
  }

  /** A commit seen from outside the body (an HTTP request it made, perhaps answered after the body returned); never throws. */
  commitObserved(evidence: CommitEvidence, attributes: Attributes, how?: { acrossStop?: boolean }): void {
    void this.writeCommit(evidence, attributes, how?.acrossStop === true);
  }

  private writeCommit(evidence: CommitEvidence, extra?: Attributes, acrossStop = false): Promise<void> {
    try {
      const state = this.run.cancelState;
      const attributes: Attributes = Object.assign(this.identity(extra), {
        [ATTR_TOOL_EFFECT]: this.effect,
        [ATTR_CANCEL_STATE]: state,
        [ATTR_TOOL_COMMIT_EVIDENCE]: evidence,
      });
      if (this.idempotencyKey !== undefined) attributes[ATTR_TOOL_IDEMPOTENCY_KEY] = this.idempotencyKey;
      this.run.marker(SPAN_TOOL_COMMIT, attributes, this.context);
      if (!this.ended) this.commits++;
      if (state === 'none') return RESOLVED;
      this.committedAfterStop = true;
      recordCommitAfterStop(this.run.common, this.name, this.effect, evidence === 'request_sent' || acrossStop);
      // A commit after Stop is the evidence of a ghost: make sure it is written.
      return this.run.flushEvidence();
    } catch (error) {
      reportInternalError('tool commit', error);
      return RESOLVED;
    }
  }

  /** End the call (once); `endTime` when the body returned earlier than what became of its result was known. */
  finishCall(options: ToolEndOptions = {}, endTime?: HrTime): void {
    if (this.ended) return;
    this.ended = true;
    try {
      // Its span, about to end, tells of its start: a start marker not written yet never is.
      if (this.deferred !== undefined) this.run.withdrawMarker(this.deferred);
      this.finish(options, endTime);
    } catch (error) {
      reportInternalError('tool end', error);
    }
    this.bodyEnded();
  }

  /**
   * The body returned, and what became of its result will be known later (the
   * span then ends with `finishCall(options, endTime)`): from now on the call
   * is no longer in flight for the run's cancel and settle figures.
   */
  bodyEnded(): void {
    if (!this.inflight) return;
    this.inflight = false;
    this.run.childEnded('tool', this.started);
  }

  private finish(options: ToolEndOptions, endTime: HrTime | undefined): void {
    const span = this.span;
    try {
      const signal = this.run.signal;
      const { error } = options;
      if ('output' in options) this.writeOutput(options.output);
      const hasError = 'error' in options;
      const byCancel = hasError && signal.aborted && isAbortError(error, signal);
      const result = options.result ?? this.result ?? (byCancel ? 'cancelled' : this.run.cancelState === 'acknowledged' ? 'late' : 'delivered');
      span.setAttribute(ATTR_TOOL_RESULT, result);
      // The markers it wrote: a store holding fewer lost some, and the call is then no proof of "no commit".
      span.setAttribute(ATTR_TOOL_COMMIT_COUNT, this.commits);
      // Requests still unanswered may yet commit, after the span: their markers are expected too.
      if (this.openRequests > 0) span.setAttribute(ATTR_TOOL_COMMIT_PENDING, this.openRequests);
      if (options.detached === true) span.setAttribute(ATTR_TOOL_BODY_DETACHED, true);
      // A result that did not reach the conversation, after a Stop (a framework step is not in the conversation):
      // late, dropped or cancelled, or ending after the ack, as the report's lost calls (prepare-tool-outcomes.sql).
      const ack = this.run.ackTime;
      const end = endTime ?? hrTime();
      const afterAck = ack !== undefined && (end[0] > ack[0] || (end[0] === ack[0] && end[1] > ack[1]));
      if (this.kind !== 'step' && this.run.cancelState !== 'none' && (result === 'late' || result === 'dropped' || result === 'cancelled' || afterAck)) {
        recordOrphanedCall(this.run.common, this.name, this.effect);
      }
      // In flight at Stop, not read-only, its effect out of sight, no commit after Stop: a possible ghost (as the
      // report's out_of_sight, ghost-commit-facts.sql).
      if (this.outOfSight && this.effect !== 'read' && this.startedBeforeStop && this.run.cancelState !== 'none' && !this.committedAfterStop) {
        recordCommitAfterStop(this.run.common, this.name, this.effect, true);
      }
      if (signal.aborted) span.setAttribute(ATTR_TOOL_SIGNAL_OBSERVED, byCancel);
      if (byCancel || (result === 'cancelled' && !hasError)) {
        span.setAttribute(ATTR_ERROR_TYPE, ERROR_TYPE_CANCELLED);
        span.setStatus({ code: SpanStatusCode.ERROR, message: ERROR_TYPE_CANCELLED });
      } else if (hasError) {
        span.setAttribute(ATTR_ERROR_TYPE, errorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
      }
    } finally {
      // Ends even if describing a hostile error object threw.
      span.end(endTime ?? hrTime());
    }
  }
}

/**
 * End a tool call whose result's fate became known after its body returned:
 * at `endTime` (when the body returned) for afterstop's own calls. Never throws.
 */
export function endToolCall(call: ToolCall, options: ToolEndOptions, endTime?: HrTime): void {
  try {
    if (call instanceof InstrumentedToolCall) call.finishCall(options, endTime);
    else call.end(options);
  } catch (error) {
    reportInternalError('tool end', error);
  }
}

/**
 * A tool call a framework's tool loop is about to run, with its commits detected while the HTTP commit
 * detector is on; its id the framework's tool call id when it has one. Undefined when telemetry failed
 * (the body then runs as without afterstop).
 */
export function startFrameworkTool(label: string, run: Run, name: string, callId: unknown, input: unknown): ToolCall | undefined {
  return safely(label, () => run.startTool({ name, ...(typeof callId === 'string' ? { callId } : {}), detectCommits: httpCommitsDetected(), arguments: input }), undefined);
}

/** What the tool returned, for a call afterstop made (recorded only when content capture is on). */
export function recordToolOutput(call: ToolCall, output: unknown): void {
  if (call instanceof InstrumentedToolCall) call.recordOutput(output);
}

/** The body returned; what became of its result is told later (endToolCall). */
export function toolBodyEnded(call: ToolCall): void {
  if (call instanceof InstrumentedToolCall) call.bodyEnded();
}

/** How a tool body ended: its value, or what it threw (synchronously or as a rejection). */
export type BodyOutcome = CallOutcome;

/**
 * Run `invoke` as the body of `call`, in the call's context. `settled` is
 * told once how the body ended, and never throws into the app; the caller
 * gets what `invoke` gave (a promise settling the same way, when it gave one).
 */
export function invokeInToolCall<T>(call: ToolCall, invoke: () => T, settled: (outcome: BodyOutcome) => void): T {
  return observeCall('tool body end', call instanceof InstrumentedToolCall ? call.context : undefined, invoke, (outcome) => {
    if ('value' in outcome && call instanceof InstrumentedToolCall) call.recordOutput(outcome.value);
    settled(outcome);
  });
}

/** The context a tool body gets when telemetry could not start: the run goes on without it. */
function bareContext(signal: AbortSignal, callId: string | undefined): ToolContext {
  return { signal, callId: callId ?? '', commit: () => RESOLVED, setResult: () => {} };
}

/**
 * Run `body` as a tool call of `run`. Its value and its errors reach the
 * caller unchanged; if telemetry fails, the body runs as if afterstop were absent.
 */
export async function runTool<T>(run: RunScope, options: ToolCallOptions, body: (ctx: ToolContext) => T | Promise<T>): Promise<T> {
  let call: InstrumentedToolCall | undefined;
  try {
    call = new InstrumentedToolCall(run, options);
  } catch (error) {
    reportInternalError('tool start', error);
  }
  if (call === undefined) return body(bareContext(run.signal, options.callId));
  let value: T;
  try {
    value = await context.with(call.context, body, undefined, call);
  } catch (error) {
    call.finishCall({ error });
    throw error;
  }
  call.finishCall({ output: value });
  return value;
}
