import { context, createContextKey, type Context, type HrTime } from '@opentelemetry/api';
import {
  activeRun,
  contextOf,
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
import { frameworkInstrumentation } from './framework-instrumentation.js';

/** The `@openai/agents-core` versions this instrumentation is tested with (docs/instrumentations.md: supported versions). */
// Narrow: afterstop reads the streamed result's own signal and loop promise (`_getAbortSignal`, `_getStreamLoopPromise`), which are internal.
export const OPENAI_AGENTS_VERSIONS = ['>=0.20.0 <0.21'];

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
 *   handoffs' agents), with the tool call id from the call's details and the
 *   commits its HTTP requests make. What became of its result is read from
 *   the history when the run is over (the app's session when it keeps one,
 *   else the result's): `delivered` when the history
 *   holds its output; when the history holds an `incomplete` placeholder
 *   instead (Agents JS writes "aborted" for a tool stopped by the signal,
 *   even when its side effect happened), a history repair with a synthetic
 *   result; `dropped` when there is neither (a run whose promise rejected).
 */
export const OpenAIAgentsInstrumentation = frameworkInstrumentation({
  name: 'afterstop-openai-agents',
  module: '@openai/agents-core',
  versions: OPENAI_AGENTS_VERSIONS,
  targets: (exports) => {
    const proto = (exports['Runner'] as { prototype?: Json } | undefined)?.prototype;
    return proto ? [[proto, 'run', (original) => wrapRun(original as Fn)]] : [];
  },
  // The tools' invoke wrappers stay on the app's tool objects; off, they pass straight through.
  switched: (on) => (enabled = on),
});

function wrapRun(original: Fn): Fn {
  return function run(this: unknown, agent: unknown, input: unknown, options?: unknown): unknown {
    if (!enabled) return original.call(this, agent, input, options);
    const groupId = ((this as Json | undefined)?.['config'] as Json | undefined)?.['groupId'];
    const observed = safely('openai-agents run start', () => new AgentsRun(agent as Json, (options ?? {}) as Json, groupId), undefined);
    if (observed === undefined) return original.call(this, agent, input, options);
    safely('openai-agents tools', () => wrapTools(agent as Json, new Set()), undefined);
    const ctx = safely('openai-agents run context', () => (observed.context ?? context.active()).setValue(AGENTS_RUN_KEY, observed), undefined);
    // With a guard deadline, the runner's signal also aborts at it.
    const runOptions = safely('openai-agents deadline', () => withRunSignal(observed.run, options, 'signal'), options);
    return observeCall(
      'openai-agents run',
      ctx,
      () => original.call(this, agent, input, runOptions),
      (outcome) => {
        if ('error' in outcome) observed.stopped(outcome.error);
        else observed.resolved(outcome.value);
      },
    );
  };
}

const OBSERVED_INVOKE = Symbol.for('afterstop.openai-agents.invoke');

/** Wrap `invoke` on the function tools of `agent` and of the agents it hands off to (once per tool). */
function wrapTools(agent: Json | undefined, seen: Set<unknown>): void {
  if (agent === undefined || agent === null || seen.has(agent)) return;
  seen.add(agent);
  wrapFunctionTools(agent['tools']);
  wrapMcpTools(agent);
  for (const handoff of (agent['handoffs'] as Json[] | undefined) ?? []) {
    wrapTools(((handoff?.['agent'] as Json | undefined) ?? handoff) as Json, seen);
  }
}

let enabled = false;

/** The Runner.run call whose loop is running (in its context: its tools find it there, nested runs have their own). */
const AGENTS_RUN_KEY = createContextKey('afterstop.openai-agents.run');

/** One `Runner.run` call. */
class AgentsRun {
  readonly run: Run;
  private readonly own: boolean;
  private readonly signal: AbortSignal | undefined;
  /** The app's session, when it keeps the conversation in one: then the session is the history. */
  private readonly session: { getItems?: () => Promise<unknown[]> } | undefined;
  /** Tool calls whose body returned, until the history says what became of their result. */
  private readonly pending = new Map<string, { call: ToolCall; endTime: HrTime }>();
  private readonly callIds = new Set<string>();
  private ended = false;
  /** Detaches the watch on a streamed result's own signal (an AbortSignal.any that a long-lived app signal keeps alive). */
  private detach: () => void = () => {};

  constructor(agent: Json, options: Json, groupId: unknown) {
    this.signal = options['signal'] instanceof AbortSignal ? options['signal'] : undefined;
    const session = options['session'] as { getItems?: () => Promise<unknown[]> } | undefined;
    this.session = typeof session?.getItems === 'function' ? session : undefined;
    ({ run: this.run, own: this.own } = joinOrStartRun({
      framework: OPENAI_AGENTS_FRAMEWORK,
      agentName: agent?.['name'],
      conversationId: [options['conversationId'], groupId, options['previousResponseId']].find((v) => typeof v === 'string' && v !== ''),
      signal: this.signal,
    }));
  }

  /** A tool call of this run started. */
  toolStarted(callId: string): void {
    this.callIds.add(callId);
  }

  /** A tool's body returned a value: its fate is known when the run is over. */
  toolReturned(call: ToolCall): void {
    if (this.ended) return endToolCall(call, { result: 'dropped' });
    this.pending.set(call.callId, { call, endTime: hrTime() });
    toolBodyEnded(call);
  }

  get context(): Context | undefined {
    return this.own ? contextOf(this.run) : undefined;
  }

  /** The runner's promise resolved: a result, or for a streamed run, a result still running. */
  resolved(result: unknown): void {
    const streamed = result as { _getAbortSignal?: () => AbortSignal | undefined; completed?: Promise<unknown>; _getStreamLoopPromise?: () => Promise<unknown> | undefined } | undefined;
    if (typeof streamed?._getAbortSignal !== 'function' || !(streamed.completed instanceof Promise)) return this.stopped(undefined, result);
    // The streamed run's own signal: aborted by `signal` and by the app cancelling its stream.
    const signal = streamed._getAbortSignal();
    if (signal !== undefined && this.own) {
      const cancel = (): void =>
        safely(
          'openai-agents cancel',
          () => {
            if (!this.ended && this.run.cancelState === 'none') void this.run.cancel({ source: 'user', reason: this.signal?.aborted ? 'the run signal aborted' : 'the app cancelled the run stream' });
          },
          undefined,
        );
      if (signal.aborted) cancel();
      else {
        signal.addEventListener('abort', cancel, { once: true });
        this.detach = () => signal.removeEventListener('abort', cancel);
      }
    }
    // Over when the result has completed and the runner's stream loop (tools still running) has finished.
    const loop = streamed._getStreamLoopPromise?.();
    void Promise.allSettled([streamed.completed, ...(loop instanceof Promise ? [loop] : [])]).then(([completed]) =>
      safely('openai-agents end', () => this.stopped(completed?.status === 'rejected' ? completed.reason : undefined, result), undefined),
    );
  }

  /**
   * The run is over. Its tools' results went into the history: the app's
   * session when it keeps one (read here, at most 2 s), else the result's.
   */
  stopped(error?: unknown, result?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.detach();
    const fromResult = (): unknown[] => ((result as { history?: unknown } | undefined)?.history as unknown[] | undefined) ?? [];
    const finish = (history: unknown[]): void => safely('openai-agents end', () => this.finish(error, history), undefined);
    // The session is read only when a tool ran (reading it may be a request to a server).
    if (this.session === undefined || this.callIds.size === 0) return finish(fromResult());
    const read = safely('openai-agents session', () => Promise.resolve(this.session?.getItems?.() ?? []), Promise.resolve([] as unknown[]));
    const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2000).unref());
    void Promise.race([read, timeout]).then(
      (items) => finish(Array.isArray(items) ? items : fromResult()),
      () => finish(fromResult()),
    );
  }

  private finish(error: unknown, history: unknown[]): void {
    const outputs = new Map<string, unknown>();
    for (const item of history as Json[]) {
      if (item?.['type'] === 'function_call_result' && typeof item['callId'] === 'string') outputs.set(item['callId'], item['status']);
    }
    for (const [callId, { call, endTime }] of this.pending) endToolCall(call, { result: outputs.get(callId) === 'completed' ? 'delivered' : 'dropped' }, endTime);
    this.pending.clear();
    // Placeholders the runner wrote for its own tool calls (status incomplete, "aborted"): the history was repaired.
    const synthetic = [...this.callIds].filter((id) => outputs.has(id) && outputs.get(id) !== 'completed');
    if (synthetic.length > 0) safely('openai-agents repair', () => this.run.repairHistory({ strategy: 'synthetic_result', toolCallIds: synthetic }), undefined);
    if (this.own) endStoppedRun(this.run, error, error === undefined || isAbortError(error, this.signal) || this.run.cancelState !== 'none');
  }
}

/** Wrap `invoke` on each function tool of `tools` (once per tool object). */
function wrapFunctionTools(tools: unknown): void {
  if (!Array.isArray(tools)) return;
  for (const tool of tools as Json[]) {
    const invoke = tool?.['invoke'] as (Fn & { [OBSERVED_INVOKE]?: true }) | undefined;
    if (tool?.['type'] !== 'function' || typeof invoke !== 'function' || invoke[OBSERVED_INVOKE] === true) continue;
    const wrapped = wrapInvoke(tool, invoke);
    Object.defineProperty(wrapped, OBSERVED_INVOKE, { value: true });
    tool['invoke'] = wrapped;
  }
}

const OBSERVED_MCP_TOOLS = Symbol.for('afterstop.openai-agents.mcp-tools');

/**
 * The agent's MCP tools are made per turn (`getMcpTools`, from its MCP servers' `tools/list`), never in
 * `agent.tools`: the function tools it returns are wrapped as the app's are, so that an MCP tool call is a
 * tool call of the run whose result's fate the history tells (the mcp instrumentation then measures its
 * `tools/call` inside that call). On the agent object, like the tools' wrappers; off, it passes straight through.
 */
function wrapMcpTools(agent: Json): void {
  const original = agent['getMcpTools'] as (Fn & { [OBSERVED_MCP_TOOLS]?: true }) | undefined;
  if (typeof original !== 'function' || original[OBSERVED_MCP_TOOLS] === true) return;
  const wrapped = function getMcpTools(this: unknown, ...args: unknown[]): unknown {
    const tools = original.apply(this, args);
    if (enabled && tools instanceof Promise) return tools.then((list: unknown) => (safely('openai-agents mcp tools', () => wrapFunctionTools(list), undefined), list));
    return tools;
  };
  Object.defineProperty(wrapped, OBSERVED_MCP_TOOLS, { value: true });
  agent['getMcpTools'] = wrapped;
}

function wrapInvoke(tool: Json, original: Fn): Fn {
  return function invoke(this: unknown, runContext: unknown, input: unknown, details?: unknown): unknown {
    const owner = enabled ? (context.active().getValue(AGENTS_RUN_KEY) as AgentsRun | undefined) : undefined;
    const run = owner?.run ?? (enabled ? activeRun() : undefined);
    if (run === undefined) return original.call(this, runContext, input, details);
    const callId = ((details as Json | undefined)?.['toolCall'] as Json | undefined)?.['callId'];
    const call = startFrameworkTool('openai-agents tool start', run, typeof tool['name'] === 'string' ? tool['name'] : 'tool', callId, input);
    if (call === undefined) return original.call(this, runContext, input, details);
    owner?.toolStarted(call.callId);
    return invokeInToolCall(
      call,
      () => original.call(this, runContext, input, details),
      (outcome) => {
        if ('error' in outcome) endToolCall(call, { error: outcome.error });
        // Its result's fate is read from the history when the run is over; without a Runner.run call to ask, delivered.
        else if (owner !== undefined) owner.toolReturned(call);
        else endToolCall(call, {});
      },
    );
  };
}
