import * as path from 'node:path';
import type { RunScope } from './internal-types.js';
import { safely } from './safe.js';
import { ATTR_PROCESS_EXECUTABLE_NAME, ATTR_PROCESS_PID, SPAN_PROCESS_ORPHAN, SPAN_PROCESS_SPAWN } from './semconv.js';
import type { TrackedProcess } from './types.js';

function alive(child: TrackedProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Child processes a run started; checked for orphans once the run ends. */
export class ProcessTracker {
  private readonly children: { child: TrackedProcess; graceMs: number }[] = [];

  constructor(private readonly run: RunScope) {}

  spawned(child: TrackedProcess, graceMs: number): void {
    safely(
      'process spawn',
      () => {
        this.children.push({ child, graceMs });
        this.run.marker(SPAN_PROCESS_SPAWN, {
          ...this.run.common,
          ...(child.pid === undefined ? {} : { [ATTR_PROCESS_PID]: child.pid }),
          ...(child.spawnfile === undefined ? {} : { [ATTR_PROCESS_EXECUTABLE_NAME]: path.basename(child.spawnfile) }),
        });
      },
      undefined,
    );
  }

  /** The run ended: a child still alive after its grace period gets an orphan marker. Timers never keep the process alive. */
  runEnded(): void {
    const endedAt = performance.now();
    for (const { child, graceMs } of this.children.splice(0)) {
      if (!alive(child)) continue;
      this.checkAfter(child, endedAt + graceMs);
    }
  }

  /**
   * Timers may fire up to a millisecond early against the spans' clock
   * (`performance.now()`), so the check re-arms until that clock has passed the
   * deadline: an orphan marker is never written inside the grace period.
   */
  private checkAfter(child: TrackedProcess, deadline: number): void {
    const timer = setTimeout(
      () => {
        if (!alive(child)) return;
        if (performance.now() < deadline) {
          this.checkAfter(child, deadline);
          return;
        }
        safely(
          'process orphan',
          () =>
            this.run.marker(SPAN_PROCESS_ORPHAN, {
              ...this.run.common,
              ...(child.pid === undefined ? {} : { [ATTR_PROCESS_PID]: child.pid }),
            }),
          undefined,
        );
      },
      Math.max(1, Math.ceil(deadline - performance.now())),
    );
    timer.unref();
  }
}
