import { context, createContextKey } from '@opentelemetry/api';
import { reportInternalError } from '../safe.js';

/**
 * The guard's escape for cleanup: code run in `afterStopCleanup(fn)` (and
 * everything it starts, in its async context) is never held by the commit
 * fence, so a tool's `finally { await afterStopCleanup(() => fetch(url, { method: 'DELETE' })) }`
 * releases what the tool holds after a Stop. Each request the fence lets
 * through that way is recorded (`afterstop.tool.fence.passed`, passed as
 * `cleanup`). Outside a stopped run it changes nothing.
 */
const CLEANUP_KEY = createContextKey('afterstop.guard.cleanup');

export function afterStopCleanup<T>(fn: () => T): T {
  let ctx;
  try {
    ctx = context.active().setValue(CLEANUP_KEY, true);
  } catch (error) {
    reportInternalError('afterStopCleanup', error);
    return fn();
  }
  return context.with(ctx, fn);
}

/** The active context is cleanup's. */
export const inCleanup = (): boolean => context.active().getValue(CLEANUP_KEY) === true;
