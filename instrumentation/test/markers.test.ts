import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { DirectMarkerWriter, markerWriterFor, TracerMarkerWriter } from '../markers.js';

function sdk(sampler?: TraceIdRatioBasedSampler) {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ spanProcessors: [processor], ...(sampler ? { sampler } : {}) });
  return { exporter, processor, tracer: provider.getTracer('afterstop', '0.1.0') };
}

describe('marker writers', () => {
  it('write an instant span under the parent, the same through the tracer and directly', () => {
    const { exporter, processor, tracer } = sdk();
    const parent = tracer.startSpan('invoke_agent');
    const context = trace.setSpan(ROOT_CONTEXT, parent);
    const direct = markerWriterFor(parent, tracer, processor);
    const viaTracer = markerWriterFor(parent, tracer, undefined);
    expect(direct).toBeInstanceOf(DirectMarkerWriter);
    expect(viaTracer).toBeInstanceOf(TracerMarkerWriter);
    direct.write('afterstop.cancel.request', { 'afterstop.cancel.id': 'a' }, context);
    viaTracer.write('afterstop.cancel.request', { 'afterstop.cancel.id': 'b' }, context);
    parent.end();
    const markers = exporter.getFinishedSpans().filter((s) => s.name === 'afterstop.cancel.request');
    expect(markers).toHaveLength(2);
    for (const marker of markers) {
      expect(marker.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(marker.spanContext().traceId).toBe(parent.spanContext().traceId);
      expect(marker.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(marker.startTime).toEqual(marker.endTime);
      expect(marker.ended).toBe(true);
      expect(marker.instrumentationScope.name).toBe('afterstop');
    }
    expect(markers.map((m) => m.attributes['afterstop.cancel.id']).sort()).toEqual(['a', 'b']);
    expect(markers[0]!.resource).toBe(markers[1]!.resource);
  });

  it('follow the parent sampling decision: no marker under an unsampled run', () => {
    const { exporter, processor, tracer } = sdk(new TraceIdRatioBasedSampler(0));
    const parent = tracer.startSpan('invoke_agent');
    expect(parent.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(0);
    const context = trace.setSpan(ROOT_CONTEXT, parent);
    new DirectMarkerWriter(processor, (parent as unknown as { resource: never }).resource, { name: 'afterstop' }).write('m', {}, context);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it('give every marker its own span id', () => {
    const { exporter, processor, tracer } = sdk();
    const parent = tracer.startSpan('p');
    const writer = markerWriterFor(parent, tracer, processor);
    for (let i = 0; i < 2000; i++) writer.write('m', {}, trace.setSpan(ROOT_CONTEXT, parent));
    const ids = new Set(exporter.getFinishedSpans().map((s) => s.spanContext().spanId));
    expect(ids.size).toBe(2000);
  });
});
