import { InputError } from './errors.js';

/**
 * An overall deadline for each request afterstop makes to a server (a ClickHouse statement, a Pushgateway
 * push): the answer whole, not only the wait between two bytes, so that a server trickling its answer a
 * byte a second cannot hold a nightly job forever. `AFTERSTOP_HTTP_DEADLINE_MS` sets it for every
 * server; else each its default.
 */
export const HTTP_DEADLINE_ENV = 'AFTERSTOP_HTTP_DEADLINE_MS';

/** The deadline in ms: the setting, else `defaultMs`. A setting that is not a positive number is the user's error. */
export function httpDeadlineMs(defaultMs: number, env: NodeJS.ProcessEnv = process.env): number {
  const value = env[HTTP_DEADLINE_ENV];
  if (value === undefined || value.trim() === '') return defaultMs;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms <= 0) throw new InputError(`${HTTP_DEADLINE_ENV}=${value}: not a number of milliseconds above 0`);
  return ms;
}

/**
 * `request`, given a signal that aborts it `ms` after it starts. Past the deadline its failure is the one
 * `passed` makes, told `within` (the deadline and how to set it, as every server's error says it).
 */
export async function withinDeadline<T>(ms: number, request: (signal: AbortSignal) => Promise<T>, passed: (within: string, cause: unknown) => Error): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await request(signal);
  } catch (error) {
    if (!signal.aborted) throw error;
    throw passed(`within ${ms} ms (${HTTP_DEADLINE_ENV} sets the deadline)`, error);
  }
}
