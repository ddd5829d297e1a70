import { CommitFencedError, endStoppedRun, guard, httpCommitsDetected, invokeInToolCall, joinOrStartRun, safely, type Run } from '../adapter-api.js';
import { frameworkInstrumentation } from './framework-instrumentation.js';

/** The `@llamaindex/workflow-core` versions this instrumentation is tested with (docs/instrumentations.md: supported versions). */
export const LLAMAINDEX_WORKFLOW_VERSIONS = ['>=1.3.4 <2'];

export const LLAMAINDEX_FRAMEWORK = 'llamaindex-workflows';

type Json = Record<string, unknown>;
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * LlamaIndex Workflows (`@llamaindex/workflow-core`). A workflow has no
 * cancel: leaving its event stream only stops delivery. What afterstop records:
 * - a run per workflow context (`createContext()`), from its first step until
 *   no step is left running;
 * - every step (a handler given to `handle`) as a tool call named after the
 *   handler, its body in the call's context (its HTTP commits are seen);
 * - the cancel request when the app leaves the context's event stream (breaks
 *   out of it, cancels it or its reader, also through `until`, `filter`,
 *   `take`, `map`) while steps are still running; the acknowledgement when
 *   the last running step has ended. Steps that start after it, and their
 *   commits, are the loop going on after Stop.
 */
export const LlamaIndexWorkflowInstrumentation = frameworkInstrumentation({
  name: 'afterstop-llamaindex-workflows',
  module: '@llamaindex/workflow-core',
  versions: LLAMAINDEX_WORKFLOW_VERSIONS,
  targets: (exports) => (typeof exports['createWorkflow'] === 'function' ? [[exports, 'createWorkflow', (original) => wrapCreateWorkflow(original as Fn)]] : []),
  // The wrappers stay on workflows already made; off, they pass straight through.
  switched: (on) => (enabled = on),
});

let enabled = false;

/** Workflow runs by their root context (a step's context has it as prototype). */
const runsByContext = new WeakMap<object, WorkflowRun>();

class WorkflowRun {
  private current: Run | undefined;
  /** The current run was started here (not joined: a workflow run inside an agent's run is part of it). */
  private own = false;
  private running = 0;
  private quietCheck: NodeJS.Immediate | undefined;

  /** The run a step starting now belongs to: the current one, the app's active run, or a new one. */
  stepRun(): Run {
    if (this.quietCheck !== undefined) clearImmediate(this.quietCheck);
    this.quietCheck = undefined;
    if (this.current === undefined) {
      ({ run: this.current, own: this.own } = joinOrStartRun({ framework: LLAMAINDEX_FRAMEWORK }));
    }
    this.running++;
    return this.current;
  }

  stepEnded(): void {
    if (--this.running > 0) return;
    // A step's output event starts the next step right after it ends: over only if none has by then.
    this.quietCheck = setImmediate(() => {
      this.quietCheck = undefined;
      if (this.running > 0 || this.current === undefined) return;
      const run = this.current;
      this.current = undefined;
      if (this.own) safely('llamaindex run end', () => endStoppedRun(run, undefined, true), undefined);
    });
    this.quietCheck.unref?.();
  }

  /** The app left the event stream: nobody reads what the steps do from now on. */
  left = false;

  /** The app left the event stream: a Stop when steps are still running. */
  streamLeft(): void {
    this.left = true;
    if (this.own && this.running > 0 && this.current !== undefined && this.current.cancelState === 'none') void this.current.cancel({ source: 'user', reason: 'the app left the workflow event stream' });
  }
}

function wrapCreateWorkflow(original: Fn): Fn {
  return function createWorkflow(this: unknown, ...args: unknown[]): unknown {
    const workflow = original.apply(this, args) as Json;
    safely('llamaindex workflow', () => observeWorkflow(workflow), undefined);
    return workflow;
  };
}

function observeWorkflow(workflow: Json): void {
  const handle = workflow['handle'];
  const createContext = workflow['createContext'];
  if (typeof handle !== 'function' || typeof createContext !== 'function') return;
  workflow['handle'] = function (this: unknown, accept: unknown, handler: unknown, ...rest: unknown[]): unknown {
    return (handle as Fn).call(this, accept, typeof handler === 'function' ? safely('llamaindex step', () => observedStep(handler as Fn), handler) : handler, ...rest);
  };
  workflow['createContext'] = function (this: unknown, ...args: unknown[]): unknown {
    const root = (createContext as Fn).apply(this, args);
    if (enabled) safely('llamaindex context', () => observeContext(root as Json), undefined);
    return root;
  };
}

function observeContext(root: Json): void {
  const run = new WorkflowRun();
  runsByContext.set(root, run);
  // The context's event stream (a getter): every stream the app reads from it is watched.
  const descriptor = Object.getOwnPropertyDescriptor(root, 'stream');
  if (descriptor?.get === undefined || descriptor.configurable === false) return;
  const get = descriptor.get;
  Object.defineProperty(root, 'stream', {
    ...descriptor,
    get(this: unknown) {
      const stream = get.call(this) as Json;
      safely('llamaindex stream', () => watchStream(stream, () => run.streamLeft()), undefined);
      return stream;
    },
  });
}

const WATCHED = Symbol.for('afterstop.llamaindex.watched-stream');

/** Calls `left` when the app leaves the stream early: a cancel, a reader's cancel, a break out of `for await`. */
function watchStream(stream: Json, left: () => void): void {
  if (stream === null || typeof stream !== 'object' || stream[WATCHED as unknown as string] === true) return;
  Object.defineProperty(stream, WATCHED, { value: true });
  const own = (name: string | symbol, make: (original: Fn) => Fn): void => {
    const original = (stream as Record<string | symbol, unknown>)[name];
    if (typeof original === 'function') Object.defineProperty(stream, name, { value: make(original as Fn), configurable: true, writable: true });
  };
  for (const derive of ['until', 'filter', 'take', 'map']) {
    own(
      derive,
      (original) =>
        function (this: unknown, ...args: unknown[]): unknown {
          const derived = original.apply(this, args);
          safely('llamaindex stream', () => watchStream(derived as Json, left), undefined);
          return derived;
        },
    );
  }
  own(
    'cancel',
    (original) =>
      function (this: unknown, ...args: unknown[]): unknown {
        safely('llamaindex stream', left, undefined);
        return original.apply(this, args);
      },
  );
  own(
    'getReader',
    (original) =>
      function (this: unknown, ...args: unknown[]): unknown {
        const reader = original.apply(this, args) as Json;
        const cancel = reader?.['cancel'];
        if (typeof cancel === 'function') {
          reader['cancel'] = function (this: unknown, ...a: unknown[]): unknown {
            safely('llamaindex stream', left, undefined);
            return (cancel as Fn).apply(this, a);
          };
        }
        return reader;
      },
  );
  own(
    Symbol.asyncIterator,
    (original) =>
      function (this: unknown, ...args: unknown[]): unknown {
        const iterator = original.apply(this, args) as Json;
        const ret = iterator?.['return'];
        if (typeof ret === 'function') {
          // return() is how `for await` leaves early (break, throw); an iterator read to its end never calls it.
          iterator['return'] = function (this: unknown, ...a: unknown[]): unknown {
            safely('llamaindex stream', left, undefined);
            return (ret as Fn).apply(this, a);
          };
        }
        return iterator;
      },
  );
}

/**
 * A workflow has no cancel: a step that fails after the app left its stream fails where nobody listens,
 * and the workflow makes that an unhandled rejection, which ends the process. When the step failed
 * because the guard's fence refused its side effect (afterstop's doing, after that Stop), the step ends
 * without an event instead: the workflow goes no further, as the Stop asked. Any other error is the
 * app's and passes unchanged.
 */
function quietFenceAfterLeave(result: unknown, run: WorkflowRun): unknown {
  if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') return result;
  return (result as Promise<unknown>).then(undefined, (error: unknown) => {
    if (run.left && causedByFence(error)) return undefined;
    throw error;
  });
}

/** The fence's refusal, or an error that wraps it (an HTTP client's own error with it as cause), a few levels deep. */
function causedByFence(error: unknown): boolean {
  let e = error;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    if (CommitFencedError.isInstance(e)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** One wrapper per handler: the workflow keeps its handlers in a Set, a handler given twice is one. */
const stepWrappers = new WeakMap<Fn, Fn>();

/** A step: a tool call of the context's run, named after the handler. */
function observedStep(handler: Fn): Fn {
  const known = stepWrappers.get(handler);
  if (known !== undefined) return known;
  const name = handler.name || 'step';
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    const [ctx, ...events] = args;
    const workflowRun = enabled && typeof ctx === 'object' && ctx !== null ? runsByContext.get(Object.getPrototypeOf(ctx) as object) : undefined;
    if (workflowRun === undefined) return handler.apply(this, args);
    const run = safely('llamaindex step start', () => workflowRun.stepRun(), undefined);
    if (run === undefined) return handler.apply(this, args);
    const call = safely('llamaindex step start', () => run.startTool({ name, detectCommits: httpCommitsDetected(), kind: 'step', arguments: events.length === 1 ? events[0] : events }), undefined);
    if (call === undefined) {
      workflowRun.stepEnded();
      return handler.apply(this, args);
    }
    const result = invokeInToolCall(
      call,
      () => handler.call(this, ctx, ...events),
      (outcome) => {
        call.end('error' in outcome ? { error: outcome.error } : {});
        workflowRun.stepEnded();
      },
    );
    return guard().fence === undefined ? result : quietFenceAfterLeave(result, workflowRun);
  };
  // The workflow tells async handlers by their constructor's name (AsyncFunction): keep it, without an extra async hop.
  Object.setPrototypeOf(wrapped, Object.getPrototypeOf(handler) as object);
  Object.defineProperty(wrapped, 'name', { value: name });
  stepWrappers.set(handler, wrapped);
  return wrapped;
}
