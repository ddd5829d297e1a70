import { context, createContextKey, type Context, type HrTime } from '@opentelemetry/api';
import {
  activeRun,
  ATTR_RUN_RESUMES,
  contextOf,
  endStoppedRun,
  endToolCall,
  hrTime,
  httpCommitsDetected,
  invokeInToolCall,
  isAbortError,
  observeCall,
  safely,
  startRun,
  toolBodyEnded,
  withRunSignal,
  type CancelSource,
  type Run,
  type ToolCall,
} from '../adapter-api.js';
import { frameworkInstrumentation, type PatchTarget } from './framework-instrumentation.js';

/** The `@langchain/langgraph` versions this instrumentation is tested with (docs/instrumentations.md: supported versions). */
export const LANGGRAPH_VERSIONS = ['>=1.7.3 <2'];

export const LANGGRAPH_FRAMEWORK = 'langgraph';

type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** LangGraph's config key for the id of the task a node runs as (constants.ts). */
const CONFIG_KEY_TASK_ID = '__pregel_task_id';

/**
 * LangGraph.js graphs. What a user of `invoke`/`stream` gets recorded:
 * - a run per top-level `stream` (what `invoke` reads), its conversation the
 *   `thread_id`; a graph run inside a node joins the run it is part of;
 * - the cancel request when `signal` aborts, when the app stops reading the
 *   stream (breaks out of it, cancels it: LangGraph aborts the run's own
 *   controller, which is watched), or when the run's `RunControl` is asked to
 *   drain; the acknowledgement when the stream the app holds is over;
 * - every execution of a node given as a function (`addNode`) as a tool
 *   call named after the node, its call id the task id and its idempotency
 *   key `thread_id:task id`: a resume that re-runs the node (same task id)
 *   makes the same key, so leak-report counts the replayed side effect. The
 *   node body runs in the call's context, so the commits its HTTP requests
 *   make are seen even after LangGraph has given up on the node;
 * - an interrupt is a pause: the node's call ends without an error, its
 *   result `dropped` (the node runs again on resume), and the run completes;
 *   a resume (no input, or a Command) names the thread's previous run in
 *   `afterstop.run.resumes`.
 */
export const LangGraphInstrumentation = frameworkInstrumentation({
  name: 'afterstop-langgraph',
  module: '@langchain/langgraph',
  versions: LANGGRAPH_VERSIONS,
  targets: (exports) => targets(exports),
  // Node and ToolNode wrappers stay in graphs already built; off, they pass straight through.
  switched: (on) => (enabled = on),
});

let enabled = false;

function targets(exports: Json): PatchTarget[] {
  const found: PatchTarget[] = [];
  const stateGraph = (exports['StateGraph'] as { prototype?: Json } | undefined)?.prototype;
  if (stateGraph && typeof stateGraph['addNode'] === 'function') found.push([stateGraph, 'addNode', (o) => wrapAddNode(o as Fn)]);
  // `stream` is Pregel's own (the compiled graph's base class, not exported): found up the prototype chain.
  for (let p = (exports['CompiledStateGraph'] as { prototype?: Json } | undefined)?.prototype; p; p = Object.getPrototypeOf(p) as Json | undefined) {
    if (Object.prototype.hasOwnProperty.call(p, 'stream') && typeof p['stream'] === 'function' && p.constructor?.name === 'Pregel') {
      found.push([p, 'stream', (o) => wrapStream(o as Fn)]);
      break;
    }
  }
  const control = (exports['RunControl'] as { prototype?: Json } | undefined)?.prototype;
  if (control && typeof control['requestDrain'] === 'function') found.push([control, 'requestDrain', (o) => wrapRequestDrain(o as Fn)]);
  return found;
}

/** The last run of each thread (the 1,000 most recent threads), for a resume to name the run it continues. */
const lastRunOfThread = new Map<string, string>();
const MAX_THREADS = 1000;

/** A resume: no new input (`null`), or a Command (`new Command({ resume })`). */
const isResume = (input: unknown): boolean => input === null || input === undefined || (typeof input === 'object' && (input as { constructor?: { name?: unknown } }).constructor?.name === 'Command');

/** Runs by the RunControl they were given, for a drain asked from outside the run. */
const runsByControl = new WeakMap<object, GraphRun>();
/** The graph run of an afterstop run, for its nodes. */
const graphRuns = new WeakMap<Run, GraphRun>();

class GraphRun {
  readonly run: Run;
  private readonly signal: AbortSignal | undefined;
  /** The Stop was a drain: the step in flight finishes and is checkpointed. */
  draining = false;
  private ended = false;
  private detach: () => void = () => {};

  constructor(options: Json, input: unknown) {
    const configurable = (options['configurable'] ?? {}) as Json;
    this.signal = options['signal'] instanceof AbortSignal ? options['signal'] : undefined;
    const thread = typeof configurable['thread_id'] === 'string' && configurable['thread_id'] !== '' ? configurable['thread_id'] : undefined;
    const resumes = thread !== undefined && isResume(input) ? lastRunOfThread.get(thread) : undefined;
    this.run = startRun({
      framework: LANGGRAPH_FRAMEWORK,
      ...(thread !== undefined ? { conversationId: thread } : {}),
      ...(typeof options['runName'] === 'string' ? { agentName: options['runName'] } : {}),
      ...(this.signal ? { signal: this.signal } : {}),
      ...(resumes !== undefined ? { attributes: { [ATTR_RUN_RESUMES]: resumes } } : {}),
    });
    if (thread !== undefined) {
      lastRunOfThread.delete(thread);
      lastRunOfThread.set(thread, this.run.id);
      if (lastRunOfThread.size > MAX_THREADS) lastRunOfThread.delete(lastRunOfThread.keys().next().value as string);
    }
    if (typeof options['control'] === 'object' && options['control'] !== null) runsByControl.set(options['control'], this);
    graphRuns.set(this.run, this);
  }

  get context(): Context | undefined {
    return contextOf(this.run);
  }

  cancel(source: CancelSource, reason: string, drain = false): void {
    if (this.ended || this.run.cancelState !== 'none') return;
    this.draining = drain;
    void this.run.cancel({ source, reason });
  }

  /**
   * The stream the app reads: its own abort (a break, a cancel) is a Stop.
   * The run is over when the graph's output has ended (LangGraph pumps it
   * eagerly, read or not) or when the app's iteration ends, whichever first.
   */
  watch(stream: unknown): void {
    const s = stream as { _abortController?: AbortController; _innerReader?: { closed?: unknown }; next?: Fn; return?: Fn } | undefined;
    const controller = s?._abortController;
    if (controller instanceof AbortController) {
      const stop = (): void => safely('langgraph cancel', () => this.cancel('user', 'the app stopped reading the graph stream'), undefined);
      if (controller.signal.aborted) stop();
      else {
        controller.signal.addEventListener('abort', stop, { once: true });
        this.detach = () => controller.signal.removeEventListener('abort', stop);
      }
    }
    const closed = s?._innerReader?.closed;
    if (closed instanceof Promise) {
      closed.then(
        () => safely('langgraph end', () => this.stopped(), undefined),
        (error: unknown) => safely('langgraph end', () => this.stopped(error), undefined),
      );
    }
    const self = this;
    for (const method of ['next', 'return'] as const) {
      const original = s?.[method];
      if (typeof original !== 'function') continue;
      (s as Json)[method] = function observed(this: unknown, ...args: unknown[]): unknown {
        const result = original.apply(this, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (r: unknown) => {
            if (method === 'return' || (r as { done?: unknown } | undefined)?.done === true) safely('langgraph end', () => self.stopped(), undefined);
            return r;
          },
          (error: unknown) => {
            safely('langgraph end', () => self.stopped(error), undefined);
            throw error;
          },
        );
      };
    }
  }

  stopped(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.detach();
    const name = (error as { name?: unknown } | undefined)?.name;
    // A drain and an abort are the Stop itself, not a failure.
    const stop = error === undefined || isAbortError(error, this.signal) || name === 'GraphDrained' || this.run.cancelState !== 'none';
    endStoppedRun(this.run, error, stop);
  }
}

function wrapStream(original: Fn): Fn {
  return function stream(this: unknown, input: unknown, options?: unknown): unknown {
    // A graph run inside a node (a subgraph) is part of the run it runs in.
    if (activeRun() !== undefined) return original.call(this, input, options);
    const graphRun = safely('langgraph run start', () => new GraphRun((options ?? {}) as Json, input), undefined);
    if (graphRun === undefined) return original.call(this, input, options);
    const runOptions = safely('langgraph deadline', () => withRunSignal(graphRun.run, options, 'signal'), options);
    return observeCall(
      'langgraph run',
      graphRun.context,
      () => original.call(this, input, runOptions),
      (outcome) => {
        if ('error' in outcome) graphRun.stopped(outcome.error);
        else graphRun.watch(outcome.value);
      },
    );
  };
}

function wrapRequestDrain(original: Fn): Fn {
  return function requestDrain(this: unknown, ...args: unknown[]): unknown {
    const reason = typeof args[0] === 'string' ? args[0] : 'shutdown';
    safely('langgraph drain', () => runsByControl.get(this as object)?.cancel(/sigterm|sigint|shutdown/i.test(reason) ? 'shutdown' : 'other', `drain: ${reason}`, true), undefined);
    return original.apply(this, args);
  };
}

/** `addNode` with the nodes given as functions observed (every form: name and function, an object, a list). */
function wrapAddNode(original: Fn): Fn {
  return function addNode(this: unknown, ...args: unknown[]): unknown {
    const patched = safely('langgraph addNode', () => observedNodeArgs(args), args);
    return original.apply(this, patched);
  };
}

function observedNodeArgs(args: unknown[]): unknown[] {
  if (typeof args[0] === 'string') return [args[0], observedNode(args[0], args[1]), ...args.slice(2)];
  if (Array.isArray(args[0])) return [args[0].map((entry) => (Array.isArray(entry) && typeof entry[0] === 'string' ? [entry[0], observedNode(entry[0], entry[1]), ...entry.slice(2)] : entry)), ...args.slice(1)];
  if (typeof args[0] === 'object' && args[0] !== null) return [Object.fromEntries(Object.entries(args[0]).map(([k, v]) => [k, observedNode(k, v)])), ...args.slice(1)];
  return args;
}

const GENERATOR = Object.getPrototypeOf(function* () {}).constructor as unknown;
const ASYNC_GENERATOR = Object.getPrototypeOf(async function* () {}).constructor as unknown;

function observedNode(name: string, action: unknown): unknown {
  if (typeof (action as Json | null)?.['runTool'] === 'function') return observedToolNode(action as Json);
  // Other Runnables (a subgraph) and generator functions go as they are.
  if (typeof action !== 'function' || action instanceof (GENERATOR as Function) || action instanceof (ASYNC_GENERATOR as Function)) return action;
  const node = action as Fn;
  return {
    // The same name, for LangGraph's and the app's own logs.
    [node.name || name]: function (this: unknown, state: unknown, config?: unknown): unknown {
      // The wrapper stays in the app's graph; switched off, it passes straight through.
      const run = enabled ? activeRun() : undefined;
      if (run === undefined) return node.call(this, state, config);
      const configurable = ((config as Json | undefined)?.['configurable'] ?? {}) as Json;
      const taskId = configurable[CONFIG_KEY_TASK_ID];
      const thread = configurable['thread_id'];
      const call = safely(
        'langgraph node start',
        () =>
          run.startTool({
            name,
            ...(typeof taskId === 'string' ? { callId: taskId } : {}),
            ...(typeof taskId === 'string' && typeof thread === 'string' ? { idempotencyKey: `${thread}:${taskId}` } : {}),
            detectCommits: httpCommitsDetected(),
            kind: 'step',
            arguments: state,
          }),
        undefined,
      );
      if (call === undefined) return node.call(this, state, config);
      return invokeInToolCall(
        call,
        () => node.call(this, state, config),
        (outcome) => nodeEnded(call, run, 'error' in outcome ? outcome.error : undefined),
      );
    },
  }[node.name || name];
}

/**
 * The prebuilt ToolNode (and the agents built on it): each tool it runs is a
 * tool call with the id the model gave it, its idempotency key
 * `thread_id:tool call id` (a resume runs the same calls again). The node's
 * ToolMessages are written together when the whole node returns, so a tool
 * that returned is delivered only if its node returned before the Stop (or
 * during a drain): a fast tool beside one the Stop caught is dropped with it.
 */
const OBSERVED_TOOL_NODE = Symbol.for('afterstop.langgraph.tool-node');
/** The tool calls of one ToolNode execution that returned, waiting for the node to return. */
const TOOL_BATCH_KEY = createContextKey('afterstop.langgraph.tool-batch');
type ToolBatch = { call: ToolCall; run: Run; endTime: HrTime }[];

function observedToolNode(node: Json): Json {
  const runTool = node['runTool'] as Fn & { [OBSERVED_TOOL_NODE]?: true };
  if (runTool[OBSERVED_TOOL_NODE] === true) return node;
  const invoke = node['invoke'] as Fn | undefined;
  const wrapped = function (this: unknown, toolCall: unknown, config?: unknown, ...rest: unknown[]): unknown {
    const run = enabled ? activeRun() : undefined;
    if (run === undefined) return runTool.call(this, toolCall, config, ...rest);
    const c = (toolCall ?? {}) as Json;
    const thread = (((config as Json | undefined)?.['configurable'] ?? {}) as Json)['thread_id'];
    const call = safely(
      'langgraph tool start',
      () =>
        run.startTool({
          name: typeof c['name'] === 'string' ? c['name'] : 'tool',
          ...(typeof c['id'] === 'string' ? { callId: c['id'] } : {}),
          ...(typeof c['id'] === 'string' && typeof thread === 'string' ? { idempotencyKey: `${thread}:${c['id']}` } : {}),
          detectCommits: httpCommitsDetected(),
          arguments: c['args'],
        }),
      undefined,
    );
    if (call === undefined) return runTool.call(this, toolCall, config, ...rest);
    const batch = context.active().getValue(TOOL_BATCH_KEY) as ToolBatch | undefined;
    return invokeInToolCall(
      call,
      () => runTool.call(this, toolCall, config, ...rest),
      (outcome) => {
        if ('error' in outcome) return nodeEnded(call, run, outcome.error);
        // ToolNode turns a tool's error into a ToolMessage with status error (unless told not to); after
        // the Stop that error is the abort itself (the tool's body may well go on: its commits are seen).
        const message = outcome.value as Json | undefined;
        if (message?.['status'] === 'error') {
          // ToolNode raced the abort: the tool's own function may go on, its end out of sight (detached).
          if (run.cancelState !== 'none') call.end({ result: 'cancelled', detached: true });
          else nodeEnded(call, run, new Error(String(message['content'])));
        } else if (batch === undefined) nodeEnded(call, run);
        else {
          // Its result is written when the node returns.
          batch.push({ call, run, endTime: hrTime() });
          toolBodyEnded(call);
        }
      },
    );
  };
  Object.defineProperty(wrapped, OBSERVED_TOOL_NODE, { value: true });
  node['runTool'] = wrapped;
  if (typeof invoke === 'function') {
    node['invoke'] = function (this: unknown, ...args: unknown[]): unknown {
      if (!enabled || activeRun() === undefined) return invoke.apply(this, args);
      const batch: ToolBatch = [];
      // The node's messages are written only when it returns: when it throws (an interrupt, a tool's error
      // it does not turn into a message), the results that came back are lost with it.
      const settle = (failed = false): void => {
        for (const { call, run, endTime } of batch.splice(0)) {
          if (failed) endToolCall(call, { result: 'dropped' }, endTime);
          else nodeEnded(call, run, undefined, endTime);
        }
      };
      const result = context.with(context.active().setValue(TOOL_BATCH_KEY, batch), () => invoke.apply(this, args));
      if (!(result instanceof Promise)) return (settle(), result);
      return result.then(
        (value) => (settle(), value),
        (error: unknown) => {
          settle(true);
          throw error;
        },
      );
    };
  }
  return node;
}

/**
 * A node's result: delivered when it returned before the Stop, or during a
 * drain (the step finishes and is checkpointed); dropped when it came back
 * after an abort (LangGraph has discarded the task: nothing is checkpointed)
 * or at an interrupt (the node runs again on resume).
 */
function nodeEnded(call: ToolCall, run: Run, error?: unknown, endTime?: HrTime): void {
  safely(
    'langgraph node end',
    () => {
      const name = (error as { name?: unknown } | undefined)?.name;
      if (name === 'GraphInterrupt' || name === 'NodeInterrupt') return endToolCall(call, { result: 'dropped' }, endTime);
      if (error !== undefined) return endToolCall(call, { error }, endTime);
      endToolCall(call, run.cancelState !== 'none' && graphRuns.get(run)?.draining !== true ? { result: 'dropped' } : { result: 'delivered' }, endTime);
    },
    undefined,
  );
}
