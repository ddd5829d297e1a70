import { SpanKind, trace, type Attributes, type AttributeValue, type Context, type HrTime, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { hrTime } from './otel-compat.js';
import type { RunScope } from './internal-types.js';
import { recordCommitAfterStop, recordCommitPrevented } from './live-metrics.js';
import { reportInternalError } from './safe.js';
import type { CommitSink } from './run-context.js';
import type { KeyEndpoint } from './guard/index.js';
import {
  AFTERSTOP_SCOPE,
  ATTR_CANCEL_STATE,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_TOOL_COMMIT_EVIDENCE,
  ATTR_TOOL_EFFECT,
  ATTR_TOOL_FOREIGN,
  ATTR_TOOL_OUT_OF_SIGHT,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  SPAN_TOOL_COMMIT,
  SPAN_TOOL_COMMIT_PREVENTED,
  SPAN_TOOL_FENCE_PASSED,
} from './semconv.js';
import type { CommitEvidence, ToolEffect } from './types.js';
import { VERSION } from './version.js';

/** The span of a tool call another instrumentation started, as a span processor sees it at its start: the API's span, with the SDK's readable fields. */
export interface ForeignSpan extends Span {
  readonly name?: string;
  readonly attributes?: Attributes;
}

/** A `gen_ai.tool.call.id` that is no id: ADK writes this one when its response has none. */
const NOT_SPECIFIED = '<not specified>';

const PREFIX = `${GEN_AI_OPERATION_EXECUTE_TOOL} `;

/** The signal of a call afterstop knows no Stop for. */
const NEVER_ABORTED = new AbortController().signal;

const text = (value: AttributeValue | undefined): string | undefined => (typeof value === 'string' && value !== '' && value !== NOT_SPECIFIED ? value : undefined);

/**
 * A tool call that a framework afterstop does not patch recorded with its own OpenTelemetry GenAI span
 * (`execute_tool {tool}`: Google ADK, Strands Agents, ...), seen by afterstop's span processor at its start
 * (foreign-tool-spans.ts). Its body runs with that span active: the HTTP commit detector and the guard find
 * it there when no afterstop tool call is (run-context.ts `activeTool`). Its commit markers are children of
 * the foreign span, with its tool name and call id as the span has them when the marker is written (ADK sets
 * them only at the span's end: then its name comes from the span's name, and the id is absent) and
 * `afterstop.tool.foreign`. In an afterstop run (the framework called in its context, the manual API), they
 * carry the run's attributes and cancel state, and the fence holds the call once that run is stopped;
 * outside one, afterstop knows of no Stop: the markers carry no cancel state, and the fence never holds.
 */
export class ForeignToolCall implements CommitSink {
  /** The foreign span active: the markers' parent. */
  private readonly context: Context;
  private openRequests = 0;
  private outOfSight = false;
  private ended = false;
  declare keyEndpoints: Map<string, KeyEndpoint> | undefined;
  declare keyArgumentsDigest: string | undefined;
  declare workHosts: Set<string> | undefined;

  constructor(
    private readonly span: ForeignSpan,
    parentContext: Context,
    /** The afterstop run it runs in, if any. */
    private readonly run: RunScope | undefined,
    readonly detectsCommits: boolean,
  ) {
    this.context = trace.setSpan(parentContext, span);
  }

  /** The tool's name: the span's `gen_ai.tool.name`, else what follows `execute_tool ` in its name. */
  get toolName(): string {
    const named = text(this.span.attributes?.[ATTR_GEN_AI_TOOL_NAME]);
    if (named !== undefined) return named;
    const name = this.span.name ?? '';
    return name.startsWith(PREFIX) ? name.slice(PREFIX.length) : name;
  }

  get fenceable(): boolean {
    return true;
  }

  get callEnded(): boolean {
    return this.ended;
  }

  /** No idempotency keys: a key's identity holds the call's arguments, which a foreign span does not give (keyFor adds none without a given id). */
  get givenCallId(): string | undefined {
    return undefined;
  }

  get conversationId(): string | undefined {
    return undefined;
  }

  get runKeyScope(): string {
    return this.run?.keyScope ?? '';
  }

  get keyArguments(): unknown {
    return undefined;
  }

  /** A span followed as this call's ended (foreign-tool-spans.ts): when it is the call's own, a run started in its body is no longer its sub-agent for the fence. */
  spanEnded(span: object): void {
    if (span === this.span) this.ended = true;
  }

  runStopped(): boolean {
    const run = this.run;
    return run !== undefined && (run.cancelState !== 'none' || run.parentStopped());
  }

  runAbortReason(): unknown {
    const run = this.run;
    if (run === undefined) return undefined;
    return run.cancelState !== 'none' ? run.signal.reason : run.parentAbortReason();
  }

  requestOpened(): void {
    this.openRequests++;
  }

  requestSettled(): void {
    if (this.openRequests > 0) this.openRequests--;
  }

  /** Its mutating requests whose outcome is not known yet. */
  get pendingRequests(): number {
    return this.openRequests;
  }

  commitObserved(evidence: CommitEvidence, extra: Attributes, how?: { acrossStop?: boolean }): void {
    try {
      const attributes = this.identity(extra);
      attributes[ATTR_TOOL_COMMIT_EVIDENCE] = evidence;
      this.marker(SPAN_TOOL_COMMIT, attributes);
      const run = this.run;
      if (run === undefined || run.cancelState === 'none') return;
      recordCommitAfterStop(run.common, this.toolName, 'unknown', evidence === 'request_sent' || how?.acrossStop === true);
      // A commit after its run's Stop is the evidence of a ghost: make sure it is written.
      void run.flushEvidence();
    } catch (error) {
      reportInternalError('foreign tool commit', error);
    }
  }

  commitPrevented(extra: Attributes): void {
    try {
      this.marker(SPAN_TOOL_COMMIT_PREVENTED, this.identity(extra));
      if (this.run !== undefined) recordCommitPrevented(this.run.common, this.toolName, 'unknown');
    } catch (error) {
      reportInternalError('foreign tool commit prevented', error);
    }
  }

  fencePassed(extra: Attributes): void {
    try {
      this.marker(SPAN_TOOL_FENCE_PASSED, this.identity(extra));
    } catch (error) {
      reportInternalError('foreign tool fence passed', error);
    }
  }

  effectOutOfSight(how: string): void {
    if (this.ended || this.outOfSight) return;
    this.outOfSight = true;
    try {
      this.span.setAttribute(ATTR_TOOL_OUT_OF_SIGHT, how);
    } catch (error) {
      reportInternalError('foreign tool out of sight', error);
    }
  }

  /** Its run's signal (in an afterstop run), else one that never aborts: afterstop knows of no Stop. */
  get signal(): AbortSignal {
    return this.run?.signal ?? NEVER_ABORTED;
  }

  get spanContext(): SpanContext {
    return this.span.spanContext();
  }

  /** afterstop's tracer of the global provider (the one the foreign span came from), as its markers outside a run. */
  get tracer(): Tracer {
    return this.run?.tracer ?? trace.getTracer(AFTERSTOP_SCOPE, VERSION);
  }

  /** Attributes on the foreign span while it is open (what an MCP client's request says of the call). */
  annotate(attributes: Attributes): void {
    if (this.ended) return;
    try {
      this.span.setAttributes(attributes);
    } catch (error) {
      reportInternalError('foreign tool annotate', error);
    }
  }

  /** The effect class is the foreign span's to say: its markers carry `unknown`; an MCP tool's annotations go on the span. */
  learnEffect(effect: ToolEffect): void {
    this.annotate({ [ATTR_TOOL_EFFECT]: effect });
  }

  writeMarker(name: string, attributes: Attributes, time?: HrTime): void {
    try {
      if (time === undefined || this.run === undefined) this.marker(name, this.identity(attributes));
      else this.run.marker(name, this.identity(attributes), this.context, time);
    } catch (error) {
      reportInternalError('foreign tool marker', error);
    }
  }

  /** `extra`, the run's attributes and cancel state (in a run), the tool's name and id as the span has them now, `afterstop.tool.foreign`. */
  private identity(extra: Attributes): Attributes {
    const run = this.run;
    const attributes: Attributes = Object.assign({}, extra, run?.common, { [ATTR_GEN_AI_TOOL_NAME]: this.toolName, [ATTR_TOOL_EFFECT]: 'unknown', [ATTR_TOOL_FOREIGN]: true });
    const callId = text(this.span.attributes?.[ATTR_GEN_AI_TOOL_CALL_ID]);
    if (callId !== undefined) attributes[ATTR_GEN_AI_TOOL_CALL_ID] = callId;
    if (run !== undefined) attributes[ATTR_CANCEL_STATE] = run.cancelState;
    return attributes;
  }

  /** A marker span under the foreign span: the run's writer in a run, else afterstop's tracer (the global provider's, the one the foreign span came from). */
  private marker(name: string, attributes: Attributes): void {
    if (this.run !== undefined) {
      this.run.marker(name, attributes, this.context);
      return;
    }
    const now = hrTime();
    const tracer = trace.getTracer(AFTERSTOP_SCOPE, VERSION);
    tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: now, attributes }, this.context).end(now);
  }
}
