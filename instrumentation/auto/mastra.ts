import type { Context } from '@opentelemetry/api';
import {
  activeRun,
  callContext,
  endStoppedRun,
  endToolCall,
  hrTime,
  invokeInToolCall,
  isAbortError,
  joinOrStartRun,
  observeCall,
  safely,
  startFrameworkTool,
  toolBodyEnded,
  withRunSignal,
  type Run,
  type ToolCall,
} from '../adapter-api.js';
import type { HrTime } from '@opentelemetry/api';
import { observedModel } from './ai-sdk-model.js';
import { frameworkInstrumentation, type PatchTarget } from './framework-instrumentation.js';
import { withExecutes } from './tool-set.js';

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
 *   detector finds its requests); its result (or its error) delivered when
 *   Mastra emitted it as a `tool-result` or `tool-error` chunk (seen through
 *   the call's `onChunk`, chained before the app's): that is what Mastra puts
 *   in the history, its memory and the stream. A result Mastra never emitted
 *   by the time it stopped was dropped: 1.71 stopped by the signal while a
 *   tool honouring it failed emits nothing for the call and keeps neither the
 *   call nor its error in memory (the next turn's model request carries
 *   neither), an orphan; 1.0.4 emits the error as the call's result and
 *   keeps it (the next turn carries it). A tool call of a `generate()` whose
 *   result Mastra never emitted ends dropped when generate settles.
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
  /** Tool call ids whose result or error Mastra emitted (a `tool-result` / `tool-error` chunk). */
  private readonly emitted = new Set<string>();
  /** Tool calls whose body ended, waiting for Mastra to emit their result (or to stop without it). */
  private readonly pending = new Map<string, { call: ToolCall; failure: { error: unknown } | undefined; endTime: HrTime }>();

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

  /** The options Mastra gets: the app's, with an `onChunk` that sees the tool results Mastra emits first (then the app's, unchanged). */
  options(options: Json): Json {
    const app = options['onChunk'];
    const self = this;
    return {
      ...options,
      onChunk: function onChunk(this: unknown, ...args: unknown[]): unknown {
        safely('mastra chunk', () => self.chunk(args[0]), undefined);
        return typeof app === 'function' ? (app as Fn).apply(this, args) : undefined;
      },
    };
  }

  /** A chunk Mastra emitted (1.71: its own chunk; 1.0.4 with an AI SDK v2 model: `{ chunk }`, the AI SDK's part). */
  private chunk(chunk: unknown): void {
    const c = chunk as Json | undefined;
    const part = (typeof c?.['type'] === 'string' ? c : c?.['chunk']) as Json | undefined;
    if (part?.['type'] === 'tool-result' || part?.['type'] === 'tool-error') this.emittedResult(part);
  }

  /** Mastra emitted the result (or error) of a tool call: `{ payload: { toolCallId } }`, or the AI SDK's `{ toolCallId }`. */
  emittedResult(part: Json): void {
    const id = (part['payload'] as Json | undefined)?.['toolCallId'] ?? part['toolCallId'];
    if (typeof id !== 'string') return;
    this.emitted.add(id);
    const p = this.pending.get(id);
    if (p === undefined) return;
    this.pending.delete(id);
    endToolCall(p.call, toolEnd(p.failure, 'delivered'), p.endTime);
  }

  /** A tool body of this call ended: its result delivered once Mastra emitted it, dropped if Mastra stopped without. */
  toolEnded(call: ToolCall, failure: { error: unknown } | undefined): void {
    if (this.ended) return endToolCall(call, toolEnd(failure, 'dropped'));
    if (this.emitted.has(call.callId)) return endToolCall(call, toolEnd(failure, 'delivered'));
    this.pending.set(call.callId, { call, failure, endTime: hrTime() });
    toolBodyEnded(call);
  }

  /** Mastra has stopped (an error, or its abort); `toolResults`: the tool results it says it emitted (its output's). */
  end(error?: unknown, toolResults?: unknown): void {
    if (this.ended) return;
    if (Array.isArray(toolResults)) for (const r of toolResults) if (r !== null && typeof r === 'object') this.emittedResult(r as Json);
    this.ended = true;
    for (const { call, failure, endTime } of this.pending.values()) endToolCall(call, toolEnd(failure, 'dropped'), endTime);
    this.pending.clear();
    if (this.own) endStoppedRun(this.run, error, error === undefined || isAbortError(error, this.run.signal));
  }
}

function wrapCall(original: Fn, streamed: boolean): Fn {
  return function agentCall(this: unknown, ...args: unknown[]): unknown {
    if (!enabled) return original.apply(this, args);
    const options = (args[1] && typeof args[1] === 'object' ? args[1] : {}) as Json;
    const call = safely('mastra run start', () => new MastraRun((this ?? {}) as Json, options), undefined);
    if (call === undefined) return original.apply(this, args);
    // Only a call of its own run: a call joining another's run hands its tools to that run's call.
    const callArgs = safely(
      'mastra options',
      () => {
        const withSignal = withRunSignal(call.run, args[1], 'abortSignal');
        const observed = call.own ? call.options((withSignal ?? {}) as Json) : withSignal;
        return observed === args[1] ? args : [args[0], observed, ...args.slice(2)];
      },
      args,
    );
    return observeCall(
      'mastra call end',
      call.context,
      () => original.apply(this, callArgs),
      (outcome) => {
        if ('error' in outcome) call.end(outcome.error);
        else if (streamed) watchOutput(outcome.value, call);
        else call.end(undefined, (outcome.value as Json | undefined)?.['toolResults']);
      },
    );
  };
}

/**
 * A streamed output: Mastra has stopped when its finish reason is known (it is, aborted or not, once its
 * loop is over); its tool results, resolved with it, say which calls' results it emitted. Read only when
 * already there (before the next macrotask): a promise that never settles ends nothing, and a result not
 * seen is dropped, never assumed delivered.
 */
function watchOutput(output: unknown, call: MastraRun): void {
  const o = output as Json | undefined;
  const finishReason = o?.['finishReason'];
  if (typeof (finishReason as PromiseLike<unknown> | undefined)?.then !== 'function') return call.end();
  Promise.resolve(finishReason).then(
    () => {
      const results = safely('mastra tool results', () => o?.['toolResults'], undefined);
      const soon = new Promise<undefined>((resolve) => setImmediate(resolve, undefined));
      void Promise.race([Promise.resolve(results).catch(() => undefined), soon]).then((r) => safely('mastra end', () => call.end(undefined, r), undefined));
    },
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
    return invokeInToolCall(
      call,
      () => execute.call(this, input, options),
      (outcome) => ended(call, run, 'error' in outcome ? { error: outcome.error } : undefined),
    );
  };
}

/** The body is over: what became of its result is known when Mastra emits it, or stops without it. */
function ended(call: ToolCall, run: Run, failure?: { error: unknown }): void {
  safely(
    'mastra tool end',
    () => {
      const owner = callsOf.get(run);
      // A run not of a Mastra call (the app's own): as before, delivered while the call goes on.
      if (owner === undefined) return endToolCall(call, toolEnd(failure, 'delivered'));
      owner.toolEnded(call, failure);
    },
    undefined,
  );
}

/** How a tool call ends: its error (Mastra's tool wrapper throws its own, the tool's abort as its cause), and its result's fate. */
function toolEnd(failure: { error: unknown } | undefined, result: 'delivered' | 'dropped'): { error?: unknown; result: 'delivered' | 'dropped' } {
  if (failure === undefined) return { result };
  const cause = (failure.error as { cause?: unknown } | undefined)?.cause;
  return { error: isAbortError(cause) ? cause : failure.error, result };
}
