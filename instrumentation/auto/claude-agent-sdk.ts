import { context } from '@opentelemetry/api';
import { activeRun, callContext, FRAMEWORK_CLAUDE_AGENT_SDK, invokeInToolCall, joinOrStartRun, safely, withRunSignal, type Run } from '../adapter-api.js';
import { ClaudeMessages, effectOf, type InProcessTool } from './claude-agent-sdk-messages.js';
import { frameworkInstrumentation } from './framework-instrumentation.js';

/** The `@anthropic-ai/claude-agent-sdk` versions this instrumentation is tested with (docs/instrumentations.md: supported versions): 0.3.337, the one installed (its message shapes change between minor versions). */
export const CLAUDE_AGENT_SDK_VERSIONS = ['>=0.3.337 <0.4'];

type Json = Record<string, unknown>;
type Fn = (...args: unknown[]) => unknown;
type Iter = { next: Fn; return?: Fn; throw?: Fn };

/**
 * The Claude Agent SDK's `query()`: a run (unless the app already runs one: its calls then join it), framework
 * `claude-agent-sdk`. The Stop: the app's `options.abortController` aborting, the Query's `interrupt()` (of a
 * query with a string prompt: a session fed by an async iterable goes on after it, its later turns in the same
 * run, so there only the abort is a Stop), or the app leaving the iteration before its end (a cancel request
 * each); the acknowledgement: the SDK's iteration ended or threw. What the CLI did, from the SDK's own messages (claude-agent-sdk-messages.ts). The SDK is asked
 * for its partial messages (`includePartialMessages`), for each model turn's start, chunks and usage; when the app
 * did not ask for them, they are not handed to it. The CLI the SDK spawns, and what it spawns, are the run's
 * processes (auto/child-processes.ts): the query runs in the run's context. The app's objects are not changed:
 * the options are copied, the Query the app gets is the SDK's own, its iterator observed.
 */
export const ClaudeAgentSdkInstrumentation = frameworkInstrumentation({
  name: 'afterstop-claude-agent-sdk',
  module: '@anthropic-ai/claude-agent-sdk',
  versions: CLAUDE_AGENT_SDK_VERSIONS,
  targets: (exports) => [
    ...(typeof exports['query'] === 'function' ? [[exports, 'query', (original: unknown) => wrapQuery(original as Fn)] as [Json, string, (o: unknown) => unknown]] : []),
    ...(typeof exports['createSdkMcpServer'] === 'function' ? [[exports, 'createSdkMcpServer', (original: unknown) => wrapCreateServer(original as Fn)] as [Json, string, (o: unknown) => unknown]] : []),
  ],
  switched: () => {},
});

/** The tools of each in-process MCP server the app made (`createSdkMcpServer`'s config), each tool's definition by its name. */
const SERVERS = new WeakMap<object, Map<string, Json>>();
/** The tool definitions whose handler afterstop wrapped, with the name of the server key they were found under in a query. */
const DEFINITIONS = new WeakMap<object, { name: string }>();
/** The queries of each run (the handler of an in-process tool runs in the query's context: its run's). */
const OBSERVERS = new WeakMap<Run, Set<ClaudeMessages>>();

function observersOf(run: Run): Set<ClaudeMessages> {
  let set = OBSERVERS.get(run);
  if (set === undefined) OBSERVERS.set(run, (set = new Set()));
  return set;
}

/** The query's in-process MCP tools, by the CLI's name for them (`mcp__{server key}__{tool}`), with their effect from their annotations. */
function inProcessTools(servers: unknown): Map<string, InProcessTool> {
  const tools = new Map<string, InProcessTool>();
  if (servers === null || typeof servers !== 'object') return tools;
  for (const [key, config] of Object.entries(servers as Json)) {
    const defs = config !== null && typeof config === 'object' ? SERVERS.get(config) : undefined;
    for (const [tool, def] of defs ?? []) {
      const name = `mcp__${key}__${tool}`;
      tools.set(name, { name, effect: effectOf(def['annotations']) });
      DEFINITIONS.set(def, { name });
    }
  }
  return tools;
}

/**
 * `createSdkMcpServer({ name, tools })`: each tool's handler runs in the app's process; wrapped (on a copy of
 * the definition) to run in its tool call's context, which the CLI's `tools/call` names
 * (`_meta["claudecode/toolUseId"]`), so its HTTP commits are the call's.
 */
function wrapCreateServer(original: Fn): Fn {
  return function createSdkMcpServer(this: unknown, ...args: unknown[]): unknown {
    const prepared = safely(
      'claude-agent-sdk mcp server',
      () => {
        const options = (args[0] ?? {}) as Json;
        if (!Array.isArray(options['tools'])) return undefined;
        const defs = new Map<string, Json>();
        const tools = (options['tools'] as unknown[]).map((t) => {
          const def = t as Json;
          if (def === null || typeof def !== 'object' || typeof def['handler'] !== 'function' || typeof def['name'] !== 'string') return t;
          const copy: Json = { ...def, handler: observedHandler(def['handler'] as Fn, () => copy) };
          defs.set(def['name'], copy);
          return copy;
        });
        return { options: { ...options, tools }, defs };
      },
      undefined,
    );
    if (prepared === undefined) return original.apply(this, args);
    const config = original.apply(this, [prepared.options, ...args.slice(1)]);
    safely('claude-agent-sdk mcp server', () => (config !== null && typeof config === 'object' ? SERVERS.set(config, prepared.defs) : undefined), undefined);
    return config;
  };
}

function observedHandler(handler: Fn, def: () => Json): Fn {
  return function handle(this: unknown, input: unknown, extra: unknown): unknown {
    const call = safely(
      'claude-agent-sdk mcp tool',
      () => {
        const id = ((extra as Json | undefined)?.['_meta'] as Json | undefined)?.['claudecode/toolUseId'];
        const name = DEFINITIONS.get(def())?.name;
        const run = activeRun();
        if (typeof id !== 'string' || name === undefined || run === undefined) return undefined;
        // The query that runs this tool: the one of the run that knows the id, else the latest still going.
        const observers = [...(OBSERVERS.get(run) ?? [])];
        const observer = observers.find((o) => o.has(id)) ?? observers.reverse().find((o) => !o.isEnded);
        return observer?.callFor(id, name, input);
      },
      undefined,
    );
    if (call === undefined) return handler.call(this, input, extra);
    // Its end is the tool_result the CLI reports (claude-agent-sdk-messages.ts), not the handler's return.
    return invokeInToolCall(
      call,
      () => handler.call(this, input, extra),
      () => {},
    );
  };
}

function wrapQuery(original: Fn): Fn {
  return function query(this: unknown, ...args: unknown[]): unknown {
    const started = safely(
      'claude-agent-sdk query',
      () => {
        const params = (args[0] ?? {}) as Json;
        const options = (params['options'] ?? {}) as Json;
        const controller = options['abortController'] as AbortController | undefined;
        const signal = controller?.signal instanceof AbortSignal ? controller.signal : undefined;
        const { run, own } = joinOrStartRun({ framework: FRAMEWORK_CLAUDE_AGENT_SDK, signal });
        const observer = new ClaudeMessages(run, own, signal, inProcessTools(options['mcpServers']));
        observersOf(run).add(observer);
        const hidePartials = options['includePartialMessages'] !== true;
        // A session fed by an async iterable of user messages goes on after an interrupt(): no Stop of the query.
        const singleTurn = typeof params['prompt'] === 'string';
        const sdkOptions: Json = { ...options, includePartialMessages: true };
        // The guard's deadline reaches the SDK as an abort of the query's controller (one made for it when the app gave none).
        if (own && (withRunSignal(run, {}, 'signal') as Json)['signal'] instanceof AbortSignal) {
          const sdkController = controller instanceof AbortController ? controller : new AbortController();
          if (sdkController !== controller) sdkOptions['abortController'] = sdkController;
          run.signal.addEventListener('abort', () => safely('claude-agent-sdk deadline', () => (byDeadline(run.signal.reason) ? sdkController.abort(run.signal.reason) : undefined), undefined), { once: true });
        }
        return { observer, own, hidePartials, singleTurn, ctx: callContext(run, own), params: { ...params, options: sdkOptions } };
      },
      undefined,
    );
    if (started === undefined) return original.apply(this, args);
    const q = context.with(started.ctx, () => original.apply(this, [started.params, ...args.slice(1)])) as Json;
    return safely('claude-agent-sdk query', () => observeQuery(q, started.observer, started.own, started.hidePartials, started.singleTurn), q);
  };
}

/** An abort by the guard's deadline (DeadlineExceededError): the run's signal aborts for the app's own Stops too, which reach the SDK by themselves. */
const byDeadline = (reason: unknown): boolean => typeof (reason as { deadlineMs?: unknown } | null)?.deadlineMs === 'number' && (reason as Error).name === 'TimeoutError';

/** The Query the app gets, its own object: `next`, its async iterator, `return` and `interrupt` observed on the instance. */
function observeQuery(q: Json, observer: ClaudeMessages, own: boolean, hidePartials: boolean, singleTurn: boolean): Json {
  const next = q['next'];
  const iterate = q[Symbol.asyncIterator as unknown as string];
  const interrupt = q['interrupt'];
  const leave = q['return'];
  if (typeof next !== 'function' || typeof iterate !== 'function') return q;
  const stop = (reason: string): void => {
    safely('claude-agent-sdk stop', () => (own && observer.run.cancelState === 'none' ? void observer.run.cancel({ source: 'user', reason }) : undefined), undefined);
  };
  q['next'] = function observedNext(this: unknown, ...a: unknown[]): Promise<unknown> {
    return observedStep(() => (next as Fn).apply(this, a), observer, hidePartials);
  };
  q[Symbol.asyncIterator as unknown as string] = function observedIterator(this: unknown): unknown {
    const it = (iterate as Fn).call(this) as Iter;
    return safely('claude-agent-sdk iterator', () => observeIterator(it, observer, hidePartials, stop), it);
  };
  if (typeof interrupt === 'function' && singleTurn) {
    q['interrupt'] = function observedInterrupt(this: unknown, ...a: unknown[]): unknown {
      stop('query.interrupt()');
      return (interrupt as Fn).apply(this, a);
    };
  }
  if (typeof leave === 'function') {
    q['return'] = function observedReturn(this: unknown, ...a: unknown[]): unknown {
      stop('the app stopped reading the query');
      return (leave as Fn).apply(this, a);
    };
  }
  return q;
}

function observeIterator(it: Iter, observer: ClaudeMessages, hidePartials: boolean, stop: (reason: string) => void): Iter & { [Symbol.asyncIterator](): unknown } {
  return {
    next: (...a: unknown[]) => observedStep(() => it.next(...a), observer, hidePartials),
    // The app left the loop (`break`) before the SDK's end: its Stop.
    return: (...a: unknown[]) => {
      stop('the app stopped reading the query');
      const r = it.return === undefined ? Promise.resolve({ done: true, value: a[0] }) : it.return(...a);
      return Promise.resolve(r).then(
        (v) => {
          safely('claude-agent-sdk end', () => observer.iterationEnded(), undefined);
          return v;
        },
        (error: unknown) => {
          safely('claude-agent-sdk end', () => observer.iterationEnded(error), undefined);
          throw error;
        },
      );
    },
    ...(it.throw === undefined ? {} : { throw: (...a: unknown[]) => (it.throw as Fn)(...a) }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** One `next()` of the app's: the SDK's messages observed until one the app is to see (partial messages it did not ask for are not). */
async function observedStep(step: () => unknown, observer: ClaudeMessages, hidePartials: boolean): Promise<unknown> {
  for (;;) {
    let r: { done?: boolean; value?: unknown };
    try {
      r = (await step()) as { done?: boolean; value?: unknown };
    } catch (error) {
      safely('claude-agent-sdk end', () => observer.iterationEnded(error), undefined);
      throw error;
    }
    if (r === null || typeof r !== 'object' || r.done === true) {
      safely('claude-agent-sdk end', () => observer.iterationEnded(), undefined);
      return r;
    }
    const m = r.value as Json | undefined;
    safely('claude-agent-sdk message', () => (m !== null && typeof m === 'object' ? observer.message(m) : undefined), undefined);
    if (!(hidePartials && m?.['type'] === 'stream_event')) return r;
  }
}
