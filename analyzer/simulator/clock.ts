import { performance } from 'node:perf_hooks';

/** How far the wall clock may move from the monotonic one before a clock follows it (Date.now() counts whole ms). */
export const STEP_MS = 20;

/**
 * A clock of nanoseconds since the Unix epoch, computed the way the
 * OpenTelemetry JS SDK computes span times (an origin plus the monotonic
 * offset), so that ledger times and span times are directly comparable.
 *
 * The SDK's origin is its process's start. The simulator outlives the apps
 * it serves, so when the wall clock is stepped (NTP, a VM paused and resumed:
 * the monotonic clock does not count the pause) its origin would be off from
 * every app started after by the step. It follows the wall clock instead, as
 * a process started now would: the origin moves when the two clocks part by
 * more than STEP_MS.
 */
export function makeClock(wallMs: () => number, monotonicMs: () => number, originMs: number): () => bigint {
  let origin = originMs;
  return () => {
    const mono = monotonicMs();
    const wall = wallMs();
    if (Math.abs(origin + mono - wall) > STEP_MS) origin = wall - mono;
    return BigInt(Math.round((origin + mono) * 1e6));
  };
}

/** Nanoseconds since the Unix epoch (makeClock over Date.now and performance.now). */
export const nowNs: () => bigint = makeClock(
  () => Date.now(),
  () => performance.now(),
  performance.timeOrigin,
);
