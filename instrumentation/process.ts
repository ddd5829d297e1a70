import { commandWord } from './command-word.js';
import type { Attributes } from '@opentelemetry/api';
import type { RunScope } from './internal-types.js';
import { scanTree, type TreeProcess, type TreeScan } from './process-tree.js';
import { safely } from './safe.js';
import { ATTR_PROCESS_EXECUTABLE_NAME, ATTR_PROCESS_PARENT_PID, ATTR_PROCESS_PID, ATTR_RUN_ID, SPAN_PROCESS_ORPHAN, SPAN_PROCESS_SPAWN } from './semconv.js';
import type { TrackedProcess } from './types.js';

/** At most this many child processes are watched per run (spawn markers are written for all). */
const MAX_WATCHED = 256;

function alive(child: TrackedProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** The basename of the spawned file: the command's first word, never its arguments. */
const executableOf = (child: TrackedProcess): string | undefined => (child.spawnfile === undefined || child.spawnfile === null ? undefined : commandWord(String(child.spawnfile)));

interface Watched {
  child: TrackedProcess;
  graceMs: number;
  /** Its orphan check is armed. */
  armed: boolean;
}

/**
 * Child processes a run started (given to `trackProcess`, or spawned in the run's or a tool's context,
 * auto/child-processes.ts) and, on Linux, the processes under them (process-tree.ts): found by walking
 * /proc's parent pids from each child still alive, and by the run's mark in their environment (which
 * auto/child-processes.ts gives a spawn: it finds a descendant its parent left behind, reparented), read at the
 * Stop, at the run's end and at the check. From the run's Stop (or its end, without a Stop) plus the grace period,
 * each one still alive gets an orphan marker. /proc is read asynchronously; timers never keep the process alive.
 */
export class ProcessTracker {
  private readonly watched: Watched[] = [];
  private readonly known = new WeakSet<object>();
  /** The descendants found, by pid (kept when their parent died: they were reparented). */
  private readonly tree = new Map<number, TreeProcess>();
  /** The Stop or the run's end happened: checks are armed. */
  private triggered = false;
  /** When (performance.now()) it was triggered: the tree's grace period runs from then. */
  private triggeredAt = 0;
  private treeArmed = false;

  constructor(private readonly run: RunScope) {}

  private get runId(): string {
    return String(this.run.common[ATTR_RUN_ID]);
  }

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
        const w: Watched = { child, graceMs, armed: false };
        this.watched.push(w);
        // Spawned after the Stop: its grace period runs from now.
        if (this.triggered) this.arm(w);
      },
      undefined,
    );
  }

  /** The run was stopped: what its processes started is read now (a child killed later leaves its children reparented, out of its tree). */
  runStopped(): void {
    safely('process stop', () => this.triggerAndWalk(), undefined);
  }

  /** The run ended: its processes are read again, and, without a Stop, their grace periods start now. */
  runEnded(): void {
    safely('process end', () => this.triggerAndWalk(), undefined);
  }

  private triggerAndWalk(): void {
    if (this.watched.length === 0) return;
    const first = !this.triggered;
    this.triggered = true;
    if (first) this.triggeredAt = performance.now();
    // A child that ended before the Stop (or the run's end, without one) is no orphan; the tree is checked once.
    if (first) for (const w of this.watched) if (alive(w.child)) this.arm(w);
    void this.walk().then(() => {
      if (this.treeArmed || this.tree.size === 0) return;
      this.treeArmed = true;
      const graceMs = Math.max(...this.watched.map((w) => w.graceMs));
      this.checkAfter(this.triggeredAt + graceMs, () => void this.checkTree());
    });
  }

  private arm(w: Watched): void {
    if (w.armed) return;
    w.armed = true;
    this.checkAfter(performance.now() + w.graceMs, () => this.checkChild(w));
  }

  /** Read what is under the run's children (none off Linux): their /proc descendants and the processes carrying the run's mark, in one read of /proc. */
  private async walk(): Promise<TreeScan | undefined> {
    try {
      const children = new Set(this.watched.map((w) => w.child.pid).filter((pid) => pid !== undefined));
      const roots = [...this.watched.filter((w) => alive(w.child) && w.child.pid !== undefined).map((w) => w.child.pid as number), ...this.tree.keys()];
      const scan = await scanTree(roots, this.runId);
      for (const p of scan.found) if (!children.has(p.pid) && !this.tree.has(p.pid)) this.found(p);
      return scan;
    } catch {
      // never into the app
      return undefined;
    }
  }

  /** A descendant found in /proc: a spawn marker (its parent is the process that started it, or the one it was reparented to). */
  private found(p: TreeProcess): void {
    this.tree.set(p.pid, p);
    safely('process descendant', () => this.run.marker(SPAN_PROCESS_SPAWN, { ...this.run.common, [ATTR_PROCESS_PID]: p.pid, [ATTR_PROCESS_PARENT_PID]: p.ppid, [ATTR_PROCESS_EXECUTABLE_NAME]: p.executable }), undefined);
  }

  /** Past its grace period: the child still alive is an orphan. */
  private checkChild(w: Watched): void {
    if (!alive(w.child)) return;
    const executable = executableOf(w.child);
    this.orphan({
      ...(w.child.pid === undefined ? {} : { [ATTR_PROCESS_PID]: w.child.pid }),
      [ATTR_PROCESS_PARENT_PID]: process.pid,
      ...(executable === undefined ? {} : { [ATTR_PROCESS_EXECUTABLE_NAME]: executable }),
    });
  }

  /** Past the grace period: each descendant still alive (the same pid, started at the same time) is an orphan. */
  private async checkTree(): Promise<void> {
    try {
      // The walk's read of /proc says who is still alive: no second read per process.
      const scan = await this.walk();
      if (scan === undefined) return;
      for (const p of this.tree.values()) if (scan.alive(p)) this.orphan({ [ATTR_PROCESS_PID]: p.pid, [ATTR_PROCESS_PARENT_PID]: p.ppid, [ATTR_PROCESS_EXECUTABLE_NAME]: p.executable });
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
