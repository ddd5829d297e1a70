/** Span times as the SDK computes them (core 2.x time.ts): `[seconds, nanoseconds]` since the epoch. */
import type { HrTime, TimeInput } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';

const NANOS_PER_SECOND = 1e9;
const NANOS_PER_MILLI = 1e6;

export function millisToHrTime(epochMillis: number): HrTime {
  const seconds = Math.trunc(epochMillis / 1000);
  const nanos = Math.round((epochMillis % 1000) * NANOS_PER_MILLI);
  return [seconds, nanos];
}

export function addHrTimes(a: HrTime, b: HrTime): HrTime {
  const out: HrTime = [a[0] + b[0], a[1] + b[1]];
  if (out[1] >= NANOS_PER_SECOND) {
    out[1] -= NANOS_PER_SECOND;
    out[0] += 1;
  }
  return out;
}

/** The epoch time of `performanceNow` (a `performance.now()` reading; now by default). */
export function hrTimeFromPerformance(performanceNow: number = performance.now()): HrTime {
  return addHrTimes(millisToHrTime(performance.timeOrigin), millisToHrTime(performanceNow));
}

export function hrTimeDuration(start: HrTime, end: HrTime): HrTime {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += NANOS_PER_SECOND;
  }
  return [seconds, nanos];
}

export const isHrTime = (value: unknown): value is HrTime => Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number';

export const isTimeInput = (value: unknown): value is TimeInput => isHrTime(value) || typeof value === 'number' || value instanceof Date;
