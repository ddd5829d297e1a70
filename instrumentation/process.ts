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
    for (const { child, graceMs } of this.children.splice(0)) {
      if (!alive(child)) continue;
      const timer = setTimeout(() => {
        if (!alive(child)) return;
        safely(
          'process orphan',
          () =>
            this.run.marker(SPAN_PROCESS_ORPHAN, {
              ...this.run.common,
              ...(child.pid === undefined ? {} : { [ATTR_PROCESS_PID]: child.pid }),
            }),
          undefined,
        );
      }, graceMs);
      timer.unref();
    }
  }
}
