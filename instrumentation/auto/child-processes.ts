import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import { activeRun, RUN_MARK_VARIABLE, safely } from '../adapter-api.js';
import { SwitchedInstrumentation } from './switched-instrumentation.js';

/**
 * Child processes, automatically: every `child_process` spawn (`spawn`, `exec`, `execFile`, `fork`, from
 * `node:child_process` or `child_process`, CommonJS or ESM) made in a run's or a tool's context is the run's
 * (`run.trackProcess`: a spawn marker, and its process tree watched for orphans past the grace period after the
 * Stop, process.ts). It patches nothing: Node publishes each new ChildProcess on the `child_process` diagnostics
 * channel, synchronously in the caller's context; the pid is read on the next tick, once the spawn returned.
 */
export class ChildProcessInstrumentation extends SwitchedInstrumentation {
  constructor(config: InstrumentationConfig = {}) {
    super('afterstop-child-processes', config);
  }

  protected on(): void {
    subscribe('child_process', onChildProcess);
  }

  protected off(): void {
    unsubscribe('child_process', onChildProcess);
  }
}

type Child = { pid?: number; exitCode: number | null; signalCode: string | null; spawnfile?: string; spawn?: (options: unknown) => unknown };

/**
 * The child's environment gets the run's mark (`AFTERSTOP_RUN_ID=<run id>`), which its descendants inherit: a
 * process its shell left behind (`sleep 30 &`), reparented when the shell exited, is still found as the run's
 * (process-tree.ts). Node's spawn calls `child.spawn(options)` right after publishing the new ChildProcess, with
 * the environment as `options.envPairs` (`KEY=value` strings); the call is wrapped once, on the instance, and
 * the app's options are copied. Any other shape: left alone.
 */
function markEnvironment(child: Child, runId: string): void {
  const spawn = child.spawn;
  if (typeof spawn !== 'function') return;
  child.spawn = function markedSpawn(this: Child, options: unknown): unknown {
    // Once: the prototype's method again.
    delete (this as { spawn?: unknown }).spawn;
    const marked = safely(
      'child process mark',
      () => {
        const pairs = (options as { envPairs?: unknown } | null)?.envPairs;
        if (!Array.isArray(pairs)) return options;
        const prefix = `${RUN_MARK_VARIABLE}=`;
        return { ...(options as object), envPairs: [...pairs.filter((p) => !(typeof p === 'string' && p.startsWith(prefix))), `${prefix}${runId}`] };
      },
      options,
    );
    return spawn.call(this, marked);
  };
}

function onChildProcess(message: unknown): void {
  safely(
    'child process',
    () => {
      const child = (message as { process?: Child } | undefined)?.process;
      const run = activeRun();
      if (child === undefined || run === undefined || (run as { hasEnded?: boolean }).hasEnded === true) return;
      markEnvironment(child, run.id);
      // The spawn has not happened yet: the pid (and the file spawned) is there once spawn() returned. A spawn that failed has none.
      process.nextTick(() => safely('child process', () => (child.pid === undefined ? undefined : run.trackProcess(child)), undefined));
    },
    undefined,
  );
}
