import type { Context } from '@opentelemetry/api';
import { observeCall } from '../observe-call.js';
import { isAbortError } from '../errors.js';
import { joinOrStartRun } from '../run-start.js';
import { callContext } from '../handles.js';
import { withRunSignal } from '../guard/deadline-signal.js';
import { safely } from '../safe.js';
import { invokeInToolCall, endToolCall, startFrameworkTool } from '../tool.js';
import type { Run, ToolCall } from '../types.js';
import { observedModel } from './ai-sdk-model.js';
import { frameworkInstrumentation, type PatchTarget } from './framework-instrumentation.js';
import { withExecutes } from './tool-set.js';
import { activeRun, endStoppedRun } from '../run-context.js';

/** The `@mastra/core` versions this instrumentation is tested with (docs/instrumentations.md: supported versions). */
export const MASTRA_VERSIONS = ['>=1.0.0 <2'];
export const MASTRA_FRAMEWORK = 'mastra';

type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Mastra agents (`@mastra/core/agent`). Mastra runs its own tool loop over
 * its own copies of the AI SDK, so the `ai` patch never sees it, and its own
 * tracing needs a Mastra instance with an observability exporter, and does
 * not say when a tool that honours the signal was stopped. So the seam is the
 * `Agent` class itself, patched on its prototype (it reaches every agent,
 * with or without a Mastra instance):
 * - `stream` / `generate`: a run (its agent the agent's name, its
 *   conversation the memory thread), the Stop its `abortSignal`; the
 *   acknowledgement when Mastra has stopped: the streamed output's
 *   `finishReason` settled, or generate's promise;
 * - `resolveModelConfig`, which makes the model the loop calls: the model
 *   observed as the AI SDK's are (ai-sdk-model.ts: chunks, usage, the abort),
 *   without touching the app's model object;
 * - `convertTools`, which makes the tools the loop runs: each `execute`
 *   a tool call (its body in the call's context, where the HTTP commit
 *   detector finds its requests); its result (or its error, which Mastra
 *   puts in the history as the result) delivered when it came back before
 *   Mastra stopped, dropped after.
 */
export const MastraInstrumentation = frameworkInstrumentation({
  name: 'afterstop-mastra',
  module: '@mastra/core/agent',
  commonJsFile: '@mastra/core/dist/agent/index.cjs',
  versions: MASTRA_VERSIONS,
  targets: (exports) => targets(exports),
  // Tool wrappers stay in tools already converted; off, they pass straight through.
  switched: (on) => (enabled = on),
});

let enabled = false;

function targets(exports: Json): PatchTarget[] {
  const proto = (exports['Agent'] as { prototype?: Json } | undefined)?.prototype;
  if (proto === undefined) return [];
  const found: PatchTarget[] = [];
  if (typeof proto['stream'] === 'function') found.push([proto, 'stream', (o) => wrapCall(o as Fn, true)]);
  if (typeof proto['generate'] === 'function') found.push([proto, 'generate', (o) => wrapCall(o as Fn, false)]);
  if (typeof proto['resolveModelConfig'] === 'function') found.push([proto, 'resolveModelConfig', (o) => wrapResolveModel(o as Fn)]);
  if (typeof proto['convertTools'] === 'function') found.push([proto, 'convertTools', (o) => wrapConvertTools(o as Fn)]);
  return found;
}

/** The calls under way by their run (a tool's result is dropped once its call is over). */
const callsOf = new WeakMap<Run, MastraRun>();

/** One stream / generate call: its run, and what ends it. */
class MastraRun {
  readonly run: Run;
  readonly own: boolean;
  ended = false;

  constructor(agent: Json, options: Json) {
    const memory = options['memory'] as Json | undefined;
    const thread = memory?.['thread'] ?? options['threadId'];
    ({ run: this.run, own: this.own } = joinOrStartRun({
      framework: MASTRA_FRAMEWORK,
      signal: options['abortSignal'] instanceof AbortSignal ? options['abortSignal'] : undefined,
      agentName: agent['name'] ?? agent['id'],
      conversationId: typeof thread === 'string' ? thread : (thread as Json | undefined)?.['id'],
    }));
    if (this.own) callsOf.set(this.run, this);
  }

  get context(): Context {
    return callContext(this.run, this.own);
  }

  /** Mastra has stopped (an error, or its abort). */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (this.own) endStoppedRun(this.run, error, error === undefined || isAbortError(error, this.run.signal));
  }
}

function wrapCall(original: Fn, streamed: boolean): Fn {
  return function agentCall(this: unknown, ...args: unknown[]): unknown {
    if (!enabled) return original.apply(this, args);
    const options = (args[1] && typeof args[1] === 'object' ? args[1] : {}) as Json;
    const call = safely('mastra run start', () => new MastraRun((this ?? {}) as Json, options), undefined);
    if (call === undefined) return original.apply(this, args);
    const callArgs = safely('mastra deadline', () => {
      const withSignal = withRunSignal(call.run, args[1], 'abortSignal');
      return withSignal === args[1] ? args : [args[0], withSignal, ...args.slice(2)];
    }, args);
    return observeCall('mastra call end', call.context, () => original.apply(this, callArgs), (outcome) => {
      if ('error' in outcome) call.end(outcome.error);
      else if (streamed) watchOutput(outcome.value, call);
      else call.end();
    });
  };
}

/** A streamed output: Mastra has stopped when its finish reason is known (it is, aborted or not, once its loop is over). */
function watchOutput(output: unknown, call: MastraRun): void {
  const finishReason = (output as Json | undefined)?.['finishReason'];
  if (typeof (finishReason as PromiseLike<unknown> | undefined)?.then !== 'function') return call.end();
  Promise.resolve(finishReason).then(
    () => safely('mastra end', () => call.end(), undefined),
    (error: unknown) => safely('mastra end', () => call.end(error), undefined),
  );
}

/** The model the loop is about to call, observed for the run under way (none: as it is). */
function wrapResolveModel(original: Fn): Fn {
  return function resolveModelConfig(this: unknown, ...args: unknown[]): unknown {
    const resolved = original.apply(this, args);
    if (!enabled || activeRun() === undefined) return resolved;
    const observe = (model: unknown): unknown => safely('mastra model', () => observedModel(model), model);
    return resolved instanceof Promise ? resolved.then(observe) : observe(resolved);
  };
}

/** The tools the loop will run, each `execute` a tool call of the run under way. */
function wrapConvertTools(original: Fn): Fn {
  return function convertTools(this: unknown, ...args: unknown[]): unknown {
    const converted = original.apply(this, args);
    const run = enabled ? activeRun() : undefined;
    if (run === undefined) return converted;
    const wrap = (tools: unknown): unknown => safely('mastra tools', () => wrapTools(tools, run), tools);
    return converted instanceof Promise ? converted.then(wrap) : wrap(converted);
  };
}

function wrapTools(tools: unknown, run: Run): unknown {
  return withExecutes(tools, (name, execute) => observedExecute(name, execute, run));
}

function observedExecute(name: string, execute: Fn, run: Run): Fn {
  return function observed(this: unknown, input: unknown, options: unknown): unknown {
    if (!enabled) return execute.call(this, input, options);
    const o = options as Json | undefined;
    const callId = o?.['toolCallId'] ?? (o?.['agent'] as Json | undefined)?.['toolCallId'];
    const call = startFrameworkTool('mastra tool start', run, name, callId, input);
    if (call === undefined) return execute.call(this, input, options);
    return invokeInToolCall(call, () => execute.call(this, input, options), (outcome) => ended(call, run, 'error' in outcome ? { error: outcome.error } : undefined));
  };
}

/** The body is over: an error, or its result, delivered while the run goes on (Mastra waits for its tools), dropped once it ended. */
function ended(call: ToolCall, run: Run, failure?: { error: unknown }): void {
  safely('mastra tool end', () => {
    const result = callsOf.get(run)?.ended === true ? 'dropped' : 'delivered';
    if (failure === undefined) return endToolCall(call, { result });
    // Mastra's tool wrapper throws its own error, the tool's abort as its cause; the loop puts the error in
    // the history as the call's result (a tool error, not a missing result).
    const cause = (failure.error as { cause?: unknown } | undefined)?.cause;
    endToolCall(call, { error: isAbortError(cause) ? cause : failure.error, result });
  }, undefined);
}
