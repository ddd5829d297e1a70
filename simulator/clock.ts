import { performance } from 'node:perf_hooks';

/**
 * Nanoseconds since the Unix epoch, computed the same way the OpenTelemetry JS
 * SDK computes span times (timeOrigin + monotonic offset), so ledger times and
 * span times are directly comparable.
 */
export function nowNs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
}
