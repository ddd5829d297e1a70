/**
 * Span times as the SDK reads a `TimeInput`. The arithmetic (epoch milliseconds to `[seconds, nanoseconds]`,
 * adding, durations, now) is core 2.x's, in ../otel-compat.ts.
 */
import type { HrTime, TimeInput } from '@opentelemetry/api';

export const isHrTime = (value: unknown): value is HrTime => Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number';

export const isTimeInput = (value: unknown): value is TimeInput => isHrTime(value) || typeof value === 'number' || value instanceof Date;
