import * as path from 'node:path';
import type { Attributes } from '@opentelemetry/api';
import type { RunScope } from './internal-types.js';
import { descendantsOf, stillAlive, type TreeProcess } from './process-tree.js';
import { safely } from './safe.js';
import { ATTR_PROCESS_EXECUTABLE_NAME, ATTR_PROCESS_PARENT_PID, ATTR_PROCESS_PID, SPAN_PROCESS_ORPHAN, SPAN_PROCESS_SPAWN } from './semconv.js';
import type { TrackedProcess } from './types.js';

/** At most this many child processes are watched per run (spawn markers are written for all). */
const MAX_WATCHED = 256;

function alive(child: TrackedProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** The basename of the spawned file: the command's first word, never its arguments. */
const executableOf = (child: TrackedProcess): string | undefined => (child.spawnfile === undefined || child.spawnfile === null ? undefined : path.basename(String(child.spawnfile).split(/\s+/)[0] ?? ''));

interface Watched {
  child: TrackedProcess;
  graceMs: number;
  /** Its descendants found in /proc (Linux), by pid: still watched when it has died (they were reparented). */
  tree: Map<number, TreeProcess>;
  /** Its orphan check is armed. */
  armed: boolean;
}

/**
 * Child processes a run started (given to `trackProcess`, or spawned in the run's or a tool's context,
 * auto/child-processes.ts) and, on Linux, their descendants (process-tree.ts, walked at the Stop, at the
 * run's end and at the check). From the run's Stop (or its end, without a Stop) plus the grace period, each
 * still alive gets an orphan marker. /proc is read asynchronously; timers never keep the process alive.
 */
export class ProcessTracker {
  private readonly watched: Watched[] = [];
  private readonly known = new WeakSet<object>();
  /** The Stop or the run's end happened: checks are armed. */
  private triggered = false;

  constructor(private readonly run: RunScope) {}

  spawned(child: TrackedProcess, graceMs: number): void {
    safely(
      'process spawn',
      () => {
        // The same child given twice (auto-tracked, then to trackProcess) is one process.
        if (typeof child === 'object' && child !== null) {
          if (this.known.has(child)) return;
          this.known.add(child);
        }
        const executable = executableOf(child);
        this.run.marker(SPAN_PROCESS_SPAWN, {
          ...this.run.common,
          ...(child.pid === undefined ? {} : { [ATTR_PROCESS_PID]: child.pid }),
          [ATTR_PROCESS_PARENT_PID]: process.pid,
          ...(executable === undefined ? {} : { [ATTR_PROCESS_EXECUTABLE_NAME]: executable }),
        });
        if (this.watched.length >= MAX_WATCHED) return;
        const w: Watched = { child, graceMs, tree: new Map(), armed: false };
        this.watched.push(w);
        // Spawned after the Stop: its grace period runs from now.
        if (this.triggered) this.arm(w);
      },
      undefined,
    );
  }

  /** The run was stopped: what its processes started is read now (a child killed later leaves its children reparented, out of its tree). */
  runStopped(): void {
    safely(
      'process stop',
      () => {
        void this.walk();
        this.trigger();
      },
      undefined,
    );
  }

  /** The run ended: its children's trees are read again, and, without a Stop, their grace periods start now. */
  runEnded(): void {
    safely(
      'process end',
      () => {
        void this.walk();
        this.trigger();
      },
      undefined,
    );
  }

  private trigger(): void {
    if (this.triggered) return;
    this.triggered = true;
    for (const w of this.watched) {
      // A child that ended before the Stop (or the run's end, without one) left no tree we know of.
      if (alive(w.child) || w.tree.size > 0) this.arm(w);
    }
  }

  private arm(w: Watched): void {
    if (w.armed) return;
    w.armed = true;
    this.checkAfter(performance.now() + w.graceMs, () => void this.check(w));
  }

  /** Read the descendants of every watched child still alive (none off Linux). */
  private async walk(): Promise<void> {
    const live = this.watched.filter((w) => alive(w.child) && w.child.pid !== undefined);
    await Promise.all(
      live.map(async (w) => {
        for (const p of await descendantsOf([w.child.pid as number])) if (!w.tree.has(p.pid)) this.found(w, p);
      }),
    );
  }

  /** A descendant found in /proc: a spawn marker (its parent is the process that started it). */
  private found(w: Watched, p: TreeProcess): void {
    w.tree.set(p.pid, p);
    safely('process descendant', () => this.run.marker(SPAN_PROCESS_SPAWN, { ...this.run.common, [ATTR_PROCESS_PID]: p.pid, [ATTR_PROCESS_PARENT_PID]: p.ppid, [ATTR_PROCESS_EXECUTABLE_NAME]: p.executable }), undefined);
  }

  /** Past the grace period: the child and each descendant still alive is an orphan. */
  private async check(w: Watched): Promise<void> {
    try {
      const roots = [...(alive(w.child) && w.child.pid !== undefined ? [w.child.pid] : []), ...w.tree.keys()];
      // What was started since the last walk, under anything still alive.
      for (const p of await descendantsOf(roots)) if (!w.tree.has(p.pid)) this.found(w, p);
      if (alive(w.child)) {
        const executable = executableOf(w.child);
        this.orphan({
          ...(w.child.pid === undefined ? {} : { [ATTR_PROCESS_PID]: w.child.pid }),
          [ATTR_PROCESS_PARENT_PID]: process.pid,
          ...(executable === undefined ? {} : { [ATTR_PROCESS_EXECUTABLE_NAME]: executable }),
        });
      }
      const living = await Promise.all([...w.tree.values()].map(async (p) => ((await stillAlive(p)) ? p : undefined)));
      for (const p of living) if (p !== undefined) this.orphan({ [ATTR_PROCESS_PID]: p.pid, [ATTR_PROCESS_PARENT_PID]: p.ppid, [ATTR_PROCESS_EXECUTABLE_NAME]: p.executable });
    } catch {
      // never into the app
    }
  }

  private orphan(attributes: Attributes): void {
    safely('process orphan', () => this.run.marker(SPAN_PROCESS_ORPHAN, { ...this.run.common, ...attributes }), undefined);
  }

  /**
   * Timers may fire up to a millisecond early against the spans' clock
   * (`performance.now()`), so the check re-arms until that clock has passed the
   * deadline: an orphan marker is never written inside the grace period.
   */
  private checkAfter(deadline: number, fn: () => void): void {
    const timer = setTimeout(
      () => {
        if (performance.now() < deadline) {
          this.checkAfter(deadline, fn);
          return;
        }
        fn();
      },
      Math.max(1, Math.ceil(deadline - performance.now())),
    );
    timer.unref();
  }
}
