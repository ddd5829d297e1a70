/**
 * The few helpers of `@opentelemetry/core` the instrumentation uses, written
 * here so that it does not depend on core (which brings
 * `@opentelemetry/semantic-conventions`, 9.5 MB, afterstop uses none of it).
 * Each behaves exactly as core 2.x's; test/instrumentation/otel-compat.test.ts
 * checks them against core's own.
 */
import { createContextKey, type Context, type HrTime } from '@opentelemetry/api';

const NANOS_PER_SECOND = 1e9;
const NANOS_PER_MILLI = 1e6;

/** Epoch milliseconds as [seconds, nanoseconds], sub-nanosecond rounded (core's `millisToHrTime`). */
export function millisToHrTime(epochMillis: number): HrTime {
  const seconds = Math.trunc(epochMillis / 1000);
  const nanos = Math.round((epochMillis % 1000) * NANOS_PER_MILLI);
  return [seconds, nanos];
}

/** Core's `addHrTimes`: the nanoseconds carried into the seconds. */
export function addHrTimes(a: HrTime, b: HrTime): HrTime {
  const out: HrTime = [a[0] + b[0], a[1] + b[1]];
  if (out[1] >= NANOS_PER_SECOND) {
    out[1] -= NANOS_PER_SECOND;
    out[0] += 1;
  }
  return out;
}

/** `performance.timeOrigin` as HrTime: fixed for the process, converted once (every span's start and end add it). */
const ORIGIN = millisToHrTime(performance.timeOrigin);

/** Now (or `performanceNow`, a `performance.now()` reading) as epoch HrTime: `performance.timeOrigin` + `performance.now()`, as core's `hrTime`. */
export function hrTime(performanceNow?: number): HrTime {
  const now = typeof performanceNow === 'number' ? performanceNow : performance.now();
  // addHrTimes(ORIGIN, millisToHrTime(now)), without the intermediate array.
  const out: HrTime = [ORIGIN[0] + Math.trunc(now / 1000), ORIGIN[1] + Math.round((now % 1000) * NANOS_PER_MILLI)];
  if (out[1] >= NANOS_PER_SECOND) {
    out[1] -= NANOS_PER_SECOND;
    out[0] += 1;
  }
  return out;
}

/** `end - start`, the nanoseconds borrowed from the seconds when negative (core's `hrTimeDuration`). */
export function hrTimeDuration(start: HrTime, end: HrTime): HrTime {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += NANOS_PER_SECOND;
  }
  return [seconds, nanos];
}

/** HrTime in milliseconds, fractional (core's `hrTimeToMilliseconds`). */
export function hrTimeToMilliseconds(time: HrTime): number {
  return time[0] * 1e3 + time[1] / 1e6;
}

/**
 * The key core's `suppressTracing` sets. `createContextKey` is `Symbol.for`
 * based: the same name is the same key, so an app's SDK and afterstop agree on
 * what is suppressed (afterstop's exports are not traced, the app's are not
 * recorded by afterstop).
 */
const SUPPRESS_TRACING_KEY = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/** `context` with tracing suppressed (core's `suppressTracing`). */
export function suppressTracing(context: Context): Context {
  return context.setValue(SUPPRESS_TRACING_KEY, true);
}

/** Whether tracing is suppressed in `context` (core's `isTracingSuppressed`). */
export function isTracingSuppressed(context: Context): boolean {
  return context.getValue(SUPPRESS_TRACING_KEY) === true;
}

/** An export's outcome: the values of core's `ExportResultCode` enum (0 success, 1 failed). */
export const ExportResultCode = { SUCCESS: 0, FAILED: 1 } as const;
export type ExportResultCode = (typeof ExportResultCode)[keyof typeof ExportResultCode];

/** What an exporter hands its result callback (core's `ExportResult`). */
export interface ExportResult {
  code: ExportResultCode;
  error?: Error;
}

/** The scope a span was made by (core's `InstrumentationScope`, a shape the SDK's `ReadableSpan` carries). */
export interface InstrumentationScope {
  readonly name: string;
  readonly version?: string;
  readonly schemaUrl?: string;
}
