import { ROOT_CONTEXT, trace, type HrTime } from '@opentelemetry/api';
import * as core from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markerWriterFor } from '../markers.js';
import * as compat from '../otel-compat.js';

/** A valid HrTime: seconds since the epoch (and a little before), nanoseconds below a second. */
const hrTimeArb = fc.tuple(fc.integer({ min: 0, max: 4_000_000_000 }), fc.integer({ min: 0, max: 999_999_999 })) as fc.Arbitrary<HrTime>;

function sdk() {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  return { exporter, processor, tracer: provider.getTracer('afterstop', '0.1.0') };
}

function order(t: HrTime): bigint {
  return BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
}

describe('otel-compat: the helpers of @opentelemetry/core, behaving as core', () => {
  it("hrTime of a performance.now() reading is core's, to the nanosecond", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e10, noNaN: true }), (now) => {
        expect(compat.hrTime(now)).toEqual(core.hrTime(now));
      }),
      { numRuns: 2000 },
    );
    // The readings whose rounding carries into the seconds.
    for (const now of [0, 0.0000004, 0.0000005, 999.9999995, 999.9999994, 1000, 123456.789012345]) {
      expect(compat.hrTime(now)).toEqual(core.hrTime(now));
    }
  });

  it("hrTime() is now from the same clock as core's: between two readings of core's", () => {
    for (let i = 0; i < 1000; i++) {
      const before = core.hrTime();
      const ours = compat.hrTime();
      const after = core.hrTime();
      expect(ours[1]).toBeGreaterThanOrEqual(0);
      expect(ours[1]).toBeLessThan(1e9);
      expect(order(ours) >= order(before)).toBe(true);
      expect(order(ours) <= order(after)).toBe(true);
    }
  });

  it("hrTimeDuration and hrTimeToMilliseconds are core's", () => {
    fc.assert(
      fc.property(hrTimeArb, hrTimeArb, (a, b) => {
        expect(compat.hrTimeDuration(a, b)).toEqual(core.hrTimeDuration(a, b));
        expect(compat.hrTimeToMilliseconds(a)).toBe(core.hrTimeToMilliseconds(a));
      }),
      { numRuns: 2000 },
    );
  });

  it("suppressTracing is core's key: each side sees what the other suppressed", () => {
    expect(compat.isTracingSuppressed(ROOT_CONTEXT)).toBe(false);
    expect(compat.isTracingSuppressed(core.suppressTracing(ROOT_CONTEXT))).toBe(true);
    expect(core.isTracingSuppressed(compat.suppressTracing(ROOT_CONTEXT))).toBe(true);
    expect(compat.isTracingSuppressed(core.unsuppressTracing(compat.suppressTracing(ROOT_CONTEXT)))).toBe(false);
  });

  it('a span suppressed by afterstop is not recorded by the SDK, and a marker in a context core suppressed is not written', () => {
    const { exporter, processor, tracer } = sdk();
    const suppressedByUs = tracer.startSpan('export', {}, compat.suppressTracing(ROOT_CONTEXT));
    expect(suppressedByUs.isRecording()).toBe(false);
    suppressedByUs.end();

    const run = tracer.startSpan('invoke_agent');
    const writer = markerWriterFor(run, tracer, processor);
    const live = trace.setSpan(ROOT_CONTEXT, run);
    writer.write('afterstop.cancel.request', { 'afterstop.cancel.id': 'kept' }, live);
    writer.write('afterstop.cancel.request', { 'afterstop.cancel.id': 'suppressed' }, core.suppressTracing(live));
    run.end();
    const names = exporter.getFinishedSpans().map((s) => s.attributes['afterstop.cancel.id'] ?? s.name);
    expect(names.sort()).toEqual(['invoke_agent', 'kept']);
  });

  it("ExportResultCode has core's values", () => {
    expect(compat.ExportResultCode.SUCCESS).toBe(core.ExportResultCode.SUCCESS);
    expect(compat.ExportResultCode.FAILED).toBe(core.ExportResultCode.FAILED);
    expect(compat.ExportResultCode).toEqual({ SUCCESS: 0, FAILED: 1 });
  });
});
