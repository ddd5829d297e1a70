import type { GuardOptions } from '../types.js';
import { reportInternalError } from '../safe.js';
import { configureGuard, resolveGuard, type ResolvedGuard } from './config.js';
import { applyHttpGuard } from './http-guard.js';

/**
 * Switch the guard to `options` (over the `AFTERSTOP_GUARD_*` variables of
 * `env`): the settings every run and guarded request reads from now on, and
 * the HTTP wrappers in place or removed to match. Never throws.
 */
export function setupGuard(options: GuardOptions | undefined, env: Record<string, string | undefined> = process.env): ResolvedGuard | undefined {
  try {
    const g = resolveGuard(options, env);
    configureGuard(g);
    applyHttpGuard(g);
    return g;
  } catch (error) {
    reportInternalError('guard setup', error);
    return undefined;
  }
}
