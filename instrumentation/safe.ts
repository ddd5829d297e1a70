import { diag } from '@opentelemetry/api';

/**
 * Telemetry must never throw into the application. Everything afterstop does
 * around the app's own code goes through these helpers: a failure is logged
 * once per place (through OpenTelemetry's diag logger) and swallowed.
 */

const reported = new Set<string>();

export function reportInternalError(where: string, error: unknown): void {
  if (reported.has(where)) return;
  reported.add(where);
  try {
    diag.error(`afterstop: telemetry failed in ${where}; the app goes on without it`, error);
  } catch {
    // diag itself failed: nothing more we can do
  }
}

const said = new Set<string>();

/** Say something the app's operator must know on stderr (not through diag, which is silent unless the app set a logger): never throws. */
export function say(message: string): void {
  try {
    process.stderr.write(`afterstop: ${message}\n`);
  } catch {
    // stderr itself failed: nothing more we can do
  }
}

/** {@link say}, once per process for each `key`. */
export function sayOnce(key: string, message: string): void {
  if (said.has(key)) return;
  said.add(key);
  say(message);
}

/** Run `fn`; on any error return `fallback` instead. */
export function safely<T>(where: string, fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch (error) {
    reportInternalError(where, error);
    return fallback;
  }
}

/** A promise that resolves after `promise` or after `ms`, whichever is first, and never rejects. */
export function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reportInternalError('flush', error);
        resolve();
      },
    );
  });
}
