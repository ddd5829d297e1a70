import { InstrumentedRun } from '../run.js';
import type { Run } from '../types.js';

/**
 * The guard's deadline reaches a framework through the abort signal its call
 * takes: for a run with a deadline, the call's options get a signal that
 * aborts when the app's own does or when the run is cancelled (its deadline
 * passed: reason {@link DeadlineExceededError}). Without a deadline the
 * options are returned untouched, the same object.
 */
export function withRunSignal(run: Run, options: unknown, key: string): unknown {
  if (!(run instanceof InstrumentedRun) || run.deadlineMs === undefined) return options;
  const base = options !== null && typeof options === 'object' ? (options as Record<string, unknown>) : {};
  const own = base[key];
  const signal = own instanceof AbortSignal ? AbortSignal.any([own, run.signal]) : run.signal;
  return { ...base, [key]: signal };
}
