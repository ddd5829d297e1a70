import { InvalidArgumentError } from 'commander';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** An age: a number and a unit (`90m`, `24h`, `7d`, `12w`). */
export const AGE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;

/**
 * A point in time for --since / --until: ISO-8601 (`2026-11-28`,
 * `2026-11-28T06:00:00Z`) or an age before `now` (`90m`, `24h`, `7d`).
 */
export function parseTime(value: string, now: Date = new Date()): Date {
  const age = AGE.exec(value.trim());
  if (age) {
    const date = new Date(now.getTime() - Number(age[1]) * (UNITS[age[2]!] ?? 0));
    if (Number.isNaN(date.getTime())) throw new InvalidArgumentError('an age too long to be a time (before 271,821 BC)');
    return date;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new InvalidArgumentError('not a time: use ISO-8601 (2026-11-28T06:00:00Z) or an age (24h, 7d)');
}

/**
 * SOURCE_DATE_EPOCH (reproducible-builds.org): the time a generated file says it was made, in whole seconds
 * since 1970, so that the same input gives the same bytes (docs/screenshots/ relies on it). Unset or empty:
 * undefined (now). Anything but digits is an error, not a silent "now".
 */
export function sourceDateEpoch(env: NodeJS.ProcessEnv = process.env): Date | undefined {
  const value = env['SOURCE_DATE_EPOCH'];
  if (value === undefined || value === '') return undefined;
  const date = /^\d{1,15}$/.test(value) ? new Date(Number(value) * 1000) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970 (reproducible-builds.org); got ${JSON.stringify(value)}`);
  return date;
}
