import { metrics, type Attributes, type ObservableResult } from '@opentelemetry/api';
import { reportInternalError } from '../safe.js';
import { VERSION } from '../version.js';
import type { BoundedBatchSpanProcessor } from './queue.js';

/**
 * afterstop's span queue reports on itself with the OpenTelemetry SDK's own
 * metrics (semantic conventions, "SDK metrics"), through whatever
 * MeterProvider is registered when the pipeline starts: the app's, or the one
 * the SDK starts for `OTEL_METRICS_EXPORTER`. Without one, nothing is sent and
 * `exportStats()` still says the same.
 *
 * - `otel.sdk.processor.span.processed`: spans handed to the exporter, and
 *   (`error.type = queue_full`) spans the full queue evicted;
 * - `otel.sdk.exporter.span.exported`: spans the exporter delivered, and
 *   (`error.type = export_failed`) spans of exports that failed or timed out;
 * - `otel.sdk.processor.span.queue.size` / `.capacity`: spans waiting, and the most that may.
 *
 * Observed at collection time: nothing is added to the span path.
 */
const COMPONENT: Attributes = { 'otel.component.type': 'batching_span_processor', 'otel.component.name': 'afterstop_batching_span_processor/0' };
const QUEUE_FULL: Attributes = { ...COMPONENT, 'error.type': 'queue_full' };
const EXPORTER: Attributes = { 'otel.component.type': 'afterstop_span_exporter', 'otel.component.name': 'afterstop_span_exporter/0' };
const EXPORT_FAILED: Attributes = { ...EXPORTER, 'error.type': 'export_failed' };

export const METRIC_SPANS_PROCESSED = 'otel.sdk.processor.span.processed';
export const METRIC_SPANS_EXPORTED = 'otel.sdk.exporter.span.exported';
export const METRIC_QUEUE_SIZE = 'otel.sdk.processor.span.queue.size';
export const METRIC_QUEUE_CAPACITY = 'otel.sdk.processor.span.queue.capacity';

/** Register the queue's metrics; returns how to stop observing. Never throws. */
export function observeQueue(processor: BoundedBatchSpanProcessor): () => void {
  try {
    const meter = metrics.getMeter('afterstop', VERSION);
    const processed = meter.createObservableCounter(METRIC_SPANS_PROCESSED, { unit: '{span}', description: 'Spans for which processing finished: handed to the exporter, or dropped (error.type)' });
    const exported = meter.createObservableCounter(METRIC_SPANS_EXPORTED, { unit: '{span}', description: 'Spans the exporter delivered, or failed to (error.type)' });
    const size = meter.createObservableUpDownCounter(METRIC_QUEUE_SIZE, { unit: '{span}', description: 'Spans waiting in the queue' });
    const capacity = meter.createObservableUpDownCounter(METRIC_QUEUE_CAPACITY, { unit: '{span}', description: 'The most spans the queue holds; beyond it the oldest are dropped' });
    const callback = (result: ObservableResult, which: 'processed' | 'exported' | 'size' | 'capacity'): void => {
      try {
        const d = processor.detail();
        const failed = d.dropped - d.queueFull;
        if (which === 'processed') {
          result.observe(d.exported + failed, COMPONENT);
          result.observe(d.queueFull, QUEUE_FULL);
        } else if (which === 'exported') {
          result.observe(d.exported, EXPORTER);
          result.observe(failed, EXPORT_FAILED);
        } else if (which === 'size') result.observe(d.queued, COMPONENT);
        else result.observe(d.capacity, COMPONENT);
      } catch (error) {
        reportInternalError('self-metrics', error);
      }
    };
    const callbacks = [
      [processed, (r: ObservableResult) => callback(r, 'processed')],
      [exported, (r: ObservableResult) => callback(r, 'exported')],
      [size, (r: ObservableResult) => callback(r, 'size')],
      [capacity, (r: ObservableResult) => callback(r, 'capacity')],
    ] as const;
    for (const [instrument, cb] of callbacks) instrument.addCallback(cb);
    return () => {
      for (const [instrument, cb] of callbacks) instrument.removeCallback(cb);
    };
  } catch (error) {
    reportInternalError('self-metrics', error);
    return () => {};
  }
}
