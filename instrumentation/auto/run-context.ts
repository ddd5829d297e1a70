import { context, createContextKey, type Context } from '@opentelemetry/api';
import type { Run } from '../types.js';

/**
 * The afterstop run a piece of code runs in, carried in the OpenTelemetry
 * context: auto-instrumented model and tool calls attach to it.
 */
const RUN_KEY = createContextKey('afterstop.run');

export function contextWithRun(ctx: Context, run: Run): Context {
  return ctx.setValue(RUN_KEY, run);
}

/** The run of the active context, if any. */
export function activeRun(): Run | undefined {
  return context.active().getValue(RUN_KEY) as Run | undefined;
}
