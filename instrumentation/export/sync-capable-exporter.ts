import type { ExportResult } from '../otel-compat.js';
import type { ReadableSpan, SpanExporter } from '../provider/sdk-types.js';

/** An exporter the queue (queue.ts) hands spans to; what it can do beyond a SpanExporter, each optional. */
export interface SyncCapableExporter extends SpanExporter {
  /** Write synchronously, for the last flush at process exit. */
  exportSync?(spans: ReadableSpan[]): boolean;
  /** Write synchronously whatever the exporter still holds (lines waiting for the disk). */
  drainSync?(): void;
  /**
   * The exporter takes an export while another runs, and bounds what it holds itself (the file exporter
   * queues lines up to its pending-bytes limit): a full queue then hands it a batch at once instead of
   * dropping spans (queue.ts).
   */
  readonly acceptsConcurrentExports?: boolean;
  /** The most exports (requests) the exporter takes at once; beyond it, it refuses them (the OTLP client). */
  readonly maxConcurrentExports?: number;
  /**
   * Export spans whose request the queue encoded beforehand (their OTLP/JSON as the pieces
   * encodeTraceRequestInParts returns, made ENCODE_PART spans a macrotask, slices.ts): the export then only
   * writes them as bytes (`utf8`) and sends or writes those. Without it, the exporter serialises a slice
   * inside export(), in one macrotask.
   */
  exportEncoded?(spans: ReadableSpan[], request: readonly string[], resultCallback: (result: ExportResult) => void): void;
  /** Whether a batch handed now would be taken (false: the exporter holds its limit already; the queue keeps it). */
  hasRoom?(): boolean;
  /**
   * Set by the queue: the exporter calls it when an export failed and it tries again later (the collector
   * refused it, or answered 5xx): the collector is failing, and a flush for a Stop stops waiting for it.
   */
  onRetrying?: (() => void) | undefined;
}
