import { context, createContextKey, type Attributes, type Context } from '@opentelemetry/api';
import { OverlayContext } from './overlay-context.js';
import type { CommitEvidence, Run } from './types.js';

/**
 * The afterstop run a piece of code runs in, carried in the OpenTelemetry
 * context: auto-instrumented model and tool calls attach to it. Inside a
 * tool body, the tool call is carried too, so that the HTTP requests the
 * body makes can be recognised as its commits.
 */
const RUN_KEY = createContextKey('afterstop.run');
const TOOL_KEY = createContextKey('afterstop.tool');

/** What the HTTP commit detector needs from the tool call whose body is running. */
export interface CommitSink {
  /** A side effect of this tool became real, known by `evidence`. */
  commitObserved(evidence: CommitEvidence, attributes: Attributes): void;
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

/** The run of the active context, if any. */
export function activeRun(): Run | undefined {
  return context.active().getValue(RUN_KEY) as Run | undefined;
}

/** The tool call whose body is running, when it detects its commits. */
export function activeTool(): CommitSink | undefined {
  return context.active().getValue(TOOL_KEY) as CommitSink | undefined;
}

/**
 * End a run that afterstop started for one SDK call, once the SDK has stopped:
 * that is the acknowledgement of a cancel that was requested; an error that
 * is the abort itself does not make the run failed.
 */
export function endStoppedRun(run: Run, error: unknown, aborted: boolean): void {
  if (run.cancelState !== 'none') run.acknowledge();
  run.end(error !== undefined && !aborted ? { error } : {});
}
