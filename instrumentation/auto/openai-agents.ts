import { context, type Context } from '@opentelemetry/api';
import { InstrumentationBase, InstrumentationNodeModuleDefinition, isWrapped, type InstrumentationConfig } from '@opentelemetry/instrumentation';
import { isAbortError } from '../errors.js';
import { startRun } from '../run-start.js';
import { safely } from '../safe.js';
import type { Run, ToolCall } from '../types.js';
import { VERSION } from '../version.js';
import { httpCommitsDetected } from './http-commits.js';
import { activeRun, endStoppedRun } from './run-context.js';

/** The `@openai/agents-core` versions this instrumentation is tested with (README: supported versions). */
export const OPENAI_AGENTS_VERSIONS = ['>=0.20.0 <1'];

export const OPENAI_AGENTS_FRAMEWORK = 'openai-agents';

type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * OpenAI Agents JS (`@openai/agents`, whose runner lives in
 * `@openai/agents-core`). Its own tracing has no OpenTelemetry output and its
 * function spans carry no tool call id, so afterstop records the run itself:
 * - `Runner.prototype.run` (what `run()` calls): a run per call, named after
 *   the agent, `gen_ai.conversation.id` from `conversationId` (else the
 *   runner's `groupId`, else `previousResponseId`); its model calls are the openai client's, observed
 *   by the `openai` instrumentation inside this run;
 * - the cancel request when `signal` aborts or the app cancels the streamed
 *   result's stream (`toStream()`, iterating it): both abort the run's own
 *   signal, which is watched; the acknowledgement when the runner's loop has
 *   finished (the promise, or a streamed run's completion and stream loop);
 * - every function tool call: `invoke` wrapped on the agent's tools (and its
 *   handoffs' agents), with the tool call id from the call's details, the
 *   commits its HTTP requests make, and its result `dropped` when it came
 *   back after the cancel (Agents JS keeps no result of a cancelled turn).
 */
export class OpenAIAgentsInstrumentation extends InstrumentationBase {
  static readonly module = '@openai/agents-core';
  /** Tools whose invoke was wrapped, for disable(). */
  private readonly tools = new Set<Json>();

  constructor(config: InstrumentationConfig = {}) {
    super('afterstop-openai-agents', VERSION, config);
  }

  protected init(): InstrumentationNodeModuleDefinition[] {
    return [
      new InstrumentationNodeModuleDefinition(
        '@openai/agents-core',
        OPENAI_AGENTS_VERSIONS,
        (exports: Json) => {
          const proto = (exports['Runner'] as { prototype?: Json } | undefined)?.prototype;
          if (proto && !isWrapped(proto['run'])) this._wrap(proto, 'run', (original) => this.wrapRun(original as Fn));
          return exports;
        },
        (exports: Json) => {
          const proto = (exports['Runner'] as { prototype?: Json } | undefined)?.prototype;
          if (proto && isWrapped(proto['run'])) this._unwrap(proto, 'run');
          for (const tool of this.tools) if (isWrapped(tool['invoke'])) this._unwrap(tool, 'invoke');
          this.tools.clear();
        },
      ),
    ];
  }

  private wrapRun(original: Fn): Fn {
    const instrumentation = this;
    return function run(this: unknown, agent: unknown, input: unknown, options?: unknown): unknown {
      const groupId = ((this as Json | undefined)?.['config'] as Json | undefined)?.['groupId'];
      const observed = safely('openai-agents run start', () => new AgentsRun(agent as Json, (options ?? {}) as Json, groupId), undefined);
      if (observed === undefined) return original.call(this, agent, input, options);
      safely('openai-agents tools', () => instrumentation.wrapTools(agent as Json, new Set()), undefined);
      let result: unknown;
      try {
        const call = () => original.call(this, agent, input, options);
        const ctx = observed.context;
        result = ctx === undefined ? call() : context.with(ctx, call);
      } catch (error) {
        safely('openai-agents run', () => observed.stopped(error), undefined);
        throw error;
      }
      if (!(result instanceof Promise)) return result;
      return result.then(
        (value: unknown) => {
          safely('openai-agents result', () => observed.resolved(value), undefined);
          return value;
        },
        (error: unknown) => {
          safely('openai-agents result', () => observed.stopped(error), undefined);
          throw error;
        },
      );
    };
  }

  /** Wrap `invoke` on the function tools of `agent` and of the agents it hands off to (once per tool). */
  private wrapTools(agent: Json | undefined, seen: Set<unknown>): void {
    if (agent === undefined || agent === null || seen.has(agent)) return;
    seen.add(agent);
    for (const tool of (agent['tools'] as Json[] | undefined) ?? []) {
      if (tool?.['type'] !== 'function' || typeof tool['invoke'] !== 'function' || isWrapped(tool['invoke'])) continue;
      this._wrap(tool, 'invoke', (original) => wrapInvoke(tool, original as Fn));
      this.tools.add(tool);
    }
    for (const handoff of (agent['handoffs'] as Json[] | undefined) ?? []) {
      this.wrapTools(((handoff?.['agent'] as Json | undefined) ?? handoff) as Json, seen);
    }
  }
}

/** One `Runner.run` call. */
class AgentsRun {
  readonly run: Run;
  private readonly own: boolean;
  private readonly signal: AbortSignal | undefined;
  private ended = false;

  constructor(agent: Json, options: Json, groupId: unknown) {
    const active = activeRun();
    this.own = active === undefined;
    this.signal = options['signal'] instanceof AbortSignal ? options['signal'] : undefined;
    const conversation = [options['conversationId'], groupId, options['previousResponseId']].find((v) => typeof v === 'string' && v !== '') as string | undefined;
    this.run =
      active ??
      startRun({
        framework: OPENAI_AGENTS_FRAMEWORK,
        ...(typeof agent?.['name'] === 'string' ? { agentName: agent['name'] } : {}),
        ...(conversation !== undefined ? { conversationId: conversation } : {}),
        ...(this.signal ? { signal: this.signal } : {}),
      });
  }

  get context(): Context | undefined {
    return this.own ? (this.run as { context?: Context }).context : undefined;
  }

  /** The runner's promise resolved: a result, or for a streamed run, a result still running. */
  resolved(result: unknown): void {
    const streamed = result as { _getAbortSignal?: () => AbortSignal | undefined; completed?: Promise<unknown>; _getStreamLoopPromise?: () => Promise<unknown> | undefined } | undefined;
    if (typeof streamed?._getAbortSignal !== 'function' || !(streamed.completed instanceof Promise)) return this.stopped();
    // The streamed run's own signal: aborted by `signal` and by the app cancelling its stream.
    const signal = streamed._getAbortSignal();
    if (signal !== undefined && this.own) {
      const cancel = (): void => {
        if (!this.ended && this.run.cancelState === 'none') void this.run.cancel({ source: 'user', reason: this.signal?.aborted ? 'the run signal aborted' : 'the app cancelled the run stream' });
      };
      if (signal.aborted) cancel();
      else signal.addEventListener('abort', cancel, { once: true });
    }
    // Over when the result has completed and the runner's stream loop (tools still running) has finished.
    const loop = streamed._getStreamLoopPromise?.();
    void Promise.allSettled([streamed.completed, ...(loop instanceof Promise ? [loop] : [])]).then(([completed]) =>
      this.stopped(completed?.status === 'rejected' ? completed.reason : undefined),
    );
  }

  stopped(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (this.own) endStoppedRun(this.run, error, error === undefined || isAbortError(error, this.signal) || this.run.cancelState !== 'none');
  }
}

function wrapInvoke(tool: Json, original: Fn): Fn {
  return function invoke(this: unknown, runContext: unknown, input: unknown, details?: unknown): unknown {
    const run = activeRun();
    if (run === undefined) return original.call(this, runContext, input, details);
    const callId = ((details as Json | undefined)?.['toolCall'] as Json | undefined)?.['callId'];
    const call = safely(
      'openai-agents tool start',
      () => run.startTool({ name: typeof tool['name'] === 'string' ? tool['name'] : 'tool', ...(typeof callId === 'string' ? { callId } : {}), detectCommits: httpCommitsDetected() }),
      undefined,
    );
    if (call === undefined) return original.call(this, runContext, input, details);
    const ctx = (call as { context?: Context }).context;
    let value: unknown;
    try {
      value = ctx === undefined ? original.call(this, runContext, input, details) : context.with(ctx, () => original.call(this, runContext, input, details));
    } catch (error) {
      endTool(call, run, { error });
      throw error;
    }
    if (typeof (value as { then?: unknown } | null)?.then !== 'function') {
      endTool(call, run);
      return value;
    }
    return Promise.resolve(value).then(
      (v) => {
        endTool(call, run);
        return v;
      },
      (error: unknown) => {
        endTool(call, run, { error });
        throw error;
      },
    );
  };
}

/** A result that comes back after the cancel is not kept: Agents JS drops the cancelled turn. */
function endTool(call: ToolCall, run: Run, failure?: { error: unknown }): void {
  safely('openai-agents tool end', () => call.end(failure !== undefined ? { error: failure.error } : run.cancelState !== 'none' ? { result: 'dropped' } : {}), undefined);
}
