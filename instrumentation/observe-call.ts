import { context, type Context } from '@opentelemetry/api';
import { reportInternalError } from './safe.js';

/** How a call of the app's ended: its value (a promise's, once it resolved), or what it threw or rejected with. */
export type CallOutcome = { value: unknown } | { error: unknown };

/**
 * Run the app's `invoke`, in `ctx` when given, and tell `ended` once how it
 * ended. `ended` never throws into the app, and the app gets what `invoke`
 * gave: the same value, the same error, and for a promise (any thenable) a
 * promise that settles the same way. What every wrapper of an app's call
 * (a tool body, a graph run, an agent run) does around the call.
 */
export function observeCall<T>(label: string, ctx: Context | undefined, invoke: () => T, ended: (outcome: CallOutcome) => void): T {
  const tell = (outcome: CallOutcome): void => {
    try {
      ended(outcome);
    } catch (error) {
      reportInternalError(label, error);
    }
  };
  let value: T;
  try {
    value = ctx === undefined ? invoke() : context.with(ctx, invoke);
  } catch (error) {
    tell({ error });
    throw error;
  }
  if (typeof (value as { then?: unknown } | null)?.then !== 'function') {
    tell({ value });
    return value;
  }
  return Promise.resolve(value).then(
    (v) => {
      tell({ value: v });
      return v;
    },
    (error: unknown) => {
      tell({ error });
      throw error;
    },
  ) as T;
}
