import { InstrumentedRun } from './run.js';
import type { Run } from './types.js';

/**
 * The guard's deadline reaches a framework through the abort signal its call
 * takes: for a run with a deadline, the call's options get (in a copy) a signal
 * that aborts when the app's own does, with its reason, or when the run is
 * cancelled (its deadline passed: reason {@link DeadlineExceededError}). The
 * links are undone when the run ends: an app's long-lived signal keeps no
 * listener of a run that is over (no `AbortSignal.any`, whose composites a
 * long-lived signal holds on to in Node 22 and 24). Without a deadline, or when
 * the app's signal is not a native AbortSignal (a polyfill: its own wiring is
 * left alone), the options are returned untouched, the same object, and the
 * run's signal is not handed over (a deadline cancel is then recorded as not
 * delivered: run.ts).
 */
export function withRunSignal(run: Run, options: unknown, key: string): unknown {
  if (!(run instanceof InstrumentedRun) || run.deadlineMs === undefined || run.hasEnded) return options;
  const base = options !== null && typeof options === 'object' ? (options as Record<string, unknown>) : {};
  const own = base[key];
  if (own !== undefined && own !== null && !(own instanceof AbortSignal)) return options;
  // From here the call's signal aborts with the run's: a deadline cancel reaches it.
  run.signalHandedOver();
  if (own === undefined || own === null) return { ...base, [key]: run.signal };
  if (own.aborted || run.signal.aborted) return { ...base, [key]: own.aborted ? own : run.signal };
  const controller = new AbortController();
  const fromApp = (): void => controller.abort(own.reason);
  const fromRun = (): void => controller.abort(run.signal.reason);
  own.addEventListener('abort', fromApp, { once: true });
  run.signal.addEventListener('abort', fromRun, { once: true });
  run.whenEnded(() => {
    own.removeEventListener('abort', fromApp);
    run.signal.removeEventListener('abort', fromRun);
  });
  return { ...base, [key]: controller.signal };
}
