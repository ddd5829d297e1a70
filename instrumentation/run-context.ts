import { context, createContextKey, trace, type Attributes, type Context, type HrTime, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { isTracingSuppressed } from './otel-compat.js';
import { OverlayContext } from './overlay-context.js';
import type { CommitEvidence, Run, ToolEffect } from './types.js';
import type { KeyedCall, StartedWork } from './guard/index.js';

/**
 * The afterstop run a piece of code runs in, carried in the OpenTelemetry
 * context: auto-instrumented model and tool calls attach to it. Inside a
 * tool body, the tool call is carried too, so that the HTTP requests the
 * body makes can be recognised as its commits.
 */
const RUN_KEY = createContextKey('afterstop.run');
const TOOL_KEY = createContextKey('afterstop.tool');

/** What the HTTP commit detector and the guard need from the tool call whose body is running. */
export interface CommitSink extends KeyedCall, StartedWork {
  /** Its HTTP requests' commits are detected (`detectCommits`); otherwise it is in the context for the guard only. */
  readonly detectsCommits: boolean;
  readonly toolName: string;
  /** The commit fence may hold it (a compensating call, which runs after Stop by design, is never held). */
  readonly fenceable: boolean;
  /**
   * A side effect of this tool became real, known by `evidence`; `acrossStop`: its request was sent before the
   * run's Stop and answered after it (the effect may lie on either side: a possible ghost, not a known one).
   */
  commitObserved(evidence: CommitEvidence, attributes: Attributes, how?: { acrossStop?: boolean }): void;
  /** A mutating request of the body was made (its commit is detected), and its outcome later known: counted while open. */
  requestOpened(): void;
  requestSettled(): void;
  /** The call has ended (its span): a run started in its body is no longer its sub-agent for the fence. */
  readonly callEnded: boolean;
  /** Its run was stopped (a cancel was requested): the fence holds its mutating requests. */
  runStopped(): boolean;
  /** Why its run's signal aborted (the cause of the fence's error). */
  runAbortReason(): unknown;
  /** The fence refused a request of the body: `attributes` say which (method, host, key). */
  commitPrevented(attributes: Attributes): void;
  /** The fence let a request of the body through after the Stop (a cancel call, cleanup): `attributes` say which and why. */
  fencePassed(attributes: Attributes): void;
  /** The body handed its effect to something afterstop does not watch (`how`: `mcp`, an MCP tools/call). */
  effectOutOfSight(how: string): void;
  /** Its run's signal: aborts at the run's Stop. */
  readonly signal: AbortSignal;
  /** The tool span's context (the parent a remote side joins through W3C trace context). */
  readonly spanContext: SpanContext;
  /** The tracer its spans come from: its HTTP requests' spans (request-span.ts) come from it too. */
  readonly tracer: Tracer;
  /** Attributes set on the tool span while it is open (what an MCP client's request says of the call). */
  annotate(attributes: Attributes): void;
  /** The effect class learnt where the tool is described (an MCP tool's annotations): taken only when the caller gave none. */
  learnEffect(effect: ToolEffect): void;
  /** A marker child of the tool span, with the call's identity (`time` defaults to now). */
  writeMarker(name: string, attributes: Attributes, time?: HrTime): void;
}

/**
 * A run's context: code in it belongs to the run and to no tool. (A model
 * call made inside a tool body, say a sub-agent's, runs in the run's context:
 * its HTTP requests are not the tool's commits.)
 */
export function contextWithRun(ctx: Context, run: Run): Context {
  return OverlayContext.set(ctx, RUN_KEY, run).deleteValue(TOOL_KEY);
}

export function contextWithTool(ctx: Context, tool: CommitSink): Context {
  return OverlayContext.set(ctx, TOOL_KEY, tool);
}

/** The API's key of the active span (`trace.setSpan`'s): `createContextKey` is `Symbol.for` based. */
const SPAN_KEY = createContextKey('OpenTelemetry Context Key SPAN');

/** `contextWithTool(trace.setSpan(ctx, span), tool)`, made in one step (a tool call's body context, made on every call). */
export function contextWithSpanAndTool(ctx: Context, span: Span, tool: CommitSink): Context {
  return OverlayContext.setTwo(ctx, SPAN_KEY, span, TOOL_KEY, tool);
}

/**
 * Run `fn` in the active context without its tool call: what it sends is not the tool body's own request
 * (an MCP client's transport, whose requests the MCP instrumentation measures itself: the HTTP commit
 * detector and the fence leave them alone).
 */
export function outsideTool<T>(fn: () => T): T {
  const ctx = context.active();
  return ctx.getValue(TOOL_KEY) === undefined ? fn() : context.with(ctx.deleteValue(TOOL_KEY), fn);
}

/** The run of the active context, if any. */
export function activeRun(): Run | undefined {
  return context.active().getValue(RUN_KEY) as Run | undefined;
}

/** The run of `ctx`, if any. */
export const runOf = (ctx: Context): Run | undefined => ctx.getValue(RUN_KEY) as Run | undefined;

/**
 * The tool calls of frameworks afterstop does not patch, by their own `execute_tool` span (the span object):
 * kept by foreign-tool-spans.ts (from the span's start to its end, bounded). Their bodies run with that span
 * active, and no afterstop tool call in the context.
 */
export const foreignTools = new WeakMap<object, CommitSink>();

/**
 * The tool call whose body is running (when it detects its commits, or the guard is on): afterstop's, else
 * a foreign one whose `execute_tool` span is the active span (foreign-tool.ts). None while
 * tracing is suppressed: that is telemetry's own work (an exporter's request, made by convention with
 * tracing suppressed, perhaps from a flush a tool's commit started), not the tool's.
 */
export function activeTool(): CommitSink | undefined {
  const ctx = context.active();
  const tool = (ctx.getValue(TOOL_KEY) as CommitSink | undefined) ?? foreignTool(ctx);
  return tool === undefined || isTracingSuppressed(ctx) ? undefined : tool;
}

/** No afterstop tool call in `ctx`: a foreign tool call whose span is the active one (foreign-tool.ts), if any. */
function foreignTool(ctx: Context): CommitSink | undefined {
  const span = trace.getSpan(ctx);
  return span === undefined ? undefined : foreignTools.get(span);
}

/**
 * Runs whose cancel was made by the guard's deadline before their signal reached the framework that
 * runs them (run.ts): nothing was told to stop, so the framework's end acknowledges nothing.
 */
const undelivered = new WeakSet<Run>();
export const cancelUndelivered = (run: Run): boolean => undelivered.has(run);
export function markCancelUndelivered(run: Run, yes: boolean): void {
  if (yes) undelivered.add(run);
  else undelivered.delete(run);
}

/**
 * End a run that afterstop started for one SDK call, once the SDK has stopped:
 * that is the acknowledgement of a cancel that was requested (unless the
 * cancel never reached the SDK: a deadline whose signal afterstop could not
 * hand it); an error that is the abort itself does not make the run failed.
 */
export function endStoppedRun(run: Run, error: unknown, aborted: boolean): void {
  if (run.cancelState !== 'none' && !undelivered.has(run)) run.acknowledge();
  run.end(error !== undefined && !aborted ? { error } : {});
}
