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

