import { metrics, type Attributes, type BatchObservableResult } from '@opentelemetry/api';
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
 * - `otel.sdk.processor.span.processed`: spans handed to the exporter (as soon
 *   as they are, whatever comes of the export), and with `error.type` the spans
 *   the processor did not hand on: `queue_full` (evicted by the full queue),
 *   `already_shutdown` (ended after the pipeline shut down);
 * - `otel.sdk.exporter.span.exported`: spans the exporter delivered, and with
 *   `error.type` those of exports that failed: `timeout` (no answer within
 *   `exportTimeoutMs`) or `export_failed` (an error);
 * - `otel.sdk.processor.span.queue.size` / `.capacity`: spans waiting, and the most that may.
 *
 * Observed at collection time: nothing is added to the span path.
 */
const COMPONENT: Attributes = { 'otel.component.type': 'batching_span_processor', 'otel.component.name': 'afterstop_batching_span_processor/0' };
const QUEUE_FULL: Attributes = { ...COMPONENT, 'error.type': 'queue_full' };
const ALREADY_SHUTDOWN: Attributes = { ...COMPONENT, 'error.type': 'already_shutdown' };
const EXPORTER: Attributes = { 'otel.component.type': 'afterstop_span_exporter', 'otel.component.name': 'afterstop_span_exporter/0' };
const EXPORT_FAILED: Attributes = { ...EXPORTER, 'error.type': 'export_failed' };
const TIMEOUT: Attributes = { ...EXPORTER, 'error.type': 'timeout' };

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
    const instruments = [processed, exported, size, capacity];
    // One callback for the four: the queue's figures are read once per collection.
    const callback = (result: BatchObservableResult): void => {
      try {
        const d = processor.detail();
        result.observe(processed, d.handed, COMPONENT);
        result.observe(processed, d.queueFull, QUEUE_FULL);
        result.observe(processed, d.afterShutdown, ALREADY_SHUTDOWN);
        result.observe(exported, d.exported, EXPORTER);
        result.observe(exported, d.timedOut, TIMEOUT);
        result.observe(exported, d.dropped - d.queueFull - d.timedOut, EXPORT_FAILED);
        result.observe(size, d.queued, COMPONENT);
        result.observe(capacity, d.capacity, COMPONENT);
      } catch (error) {
        reportInternalError('self-metrics', error);
      }
    };
    meter.addBatchObservableCallback(callback, instruments);
    return () => meter.removeBatchObservableCallback(callback, instruments);
  } catch (error) {
    reportInternalError('self-metrics', error);
    return () => {};
  }
}
