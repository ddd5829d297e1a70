import { context, type Attributes, type Context } from '@opentelemetry/api';
import { InstrumentedModelCall } from './model.js';
import { InstrumentedRun } from './run.js';
import { contextWithRun, type CommitSink } from './run-context.js';
import { InstrumentedToolCall } from './tool.js';
import type { ModelCall, Run, ToolCall } from './types.js';

/**
 * Internal handles on what afterstop made, for the auto-instrumentations: the
 * public types (types.ts) say what an app may do with a run or a call; these
 * give the instrumentations what only afterstop's own objects have. A stub
 * (what a start that failed in telemetry hands back) has none: undefined.
 */

/** The context in which the run's, or the call's, span is active. */
export function contextOf(x: Run | ToolCall | ModelCall): Context | undefined {
  return x instanceof InstrumentedRun || x instanceof InstrumentedToolCall || x instanceof InstrumentedModelCall ? x.context : undefined;
}

/**
 * The context a framework's call runs in: under the run's span when the run is its own (`own`, see
 * joinOrStartRun; another instrumentation may have made its own span active), else in the active one;
 * the run carried either way.
 */
export function callContext(run: Run, own: boolean): Context {
  return contextWithRun((own ? contextOf(run) : undefined) ?? context.active(), run);
}

/** What an adapter may record on a tool call afterstop made (its span's attributes, markers, commits): the call as the commit detector sees it. */
export function toolSinkOf(call: ToolCall): CommitSink | undefined {
  return call instanceof InstrumentedToolCall ? call : undefined;
}

/** Attributes a framework reported for the run as a whole (the Claude Agent SDK's cost), on the run span while it is open. */
export function annotateRun(run: Run, attributes: Attributes): void {
  if (run instanceof InstrumentedRun) run.annotate(attributes);
}

/** The call's effect happens where afterstop cannot watch it (`how`: afterstop.tool.out_of_sight's value). */
export function toolOutOfSight(call: ToolCall, how: string): void {
  if (call instanceof InstrumentedToolCall) call.effectOutOfSight(how);
}
