import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing } from '../otel-compat.js';
import type { ReadableSpan } from '../provider/sdk-types.js';
import { reportInternalError } from '../safe.js';
import type { ExportLedger } from './export-ledger.js';
import { encodeTraceRequestInParts } from './otlp-json-encoder.js';
import type { SyncCapableExporter } from './sync-capable-exporter.js';

/**
 * The most spans handed to the exporter at once: a larger batch goes in slices
 * this size, a macrotask apart, so that serialising it never holds the app's
 * event loop for long.
 */
export const EXPORT_SLICE = 64;

/**
 * The first slice a queue hands over is this small: the exporter's code runs cold then (serialising 64
 * spans took 3.5-4.2 ms the first time and 1.1 ms afterwards, and the first request opens its socket in
 * the same macrotask).
 */
export const COLD_SLICE = 8;

/**
 * A slice's request is encoded this many spans a macrotask, for an exporter that takes it encoded
 * (`exportEncoded`): encoding a slice of 64 spans in one went with the request's send into one macrotask,
 * the longest pause an exporting agent loop saw (bench/collector-faults.ts).
 */
export const ENCODE_PART = 16;

/** The next turn of the event loop (a macrotask): what the app has waiting runs first. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What handing a batch in slices needs of its queue. */
export interface SliceHost {
  readonly exporter: SyncCapableExporter;
  readonly ledger: ExportLedger;
  /** Spans out of the queue's ring, not yet with the exporter: its flush at exit writes them, and takes them out. */
  readonly handing: Set<ReadableSpan[]>;
}

/** `batch` cut in slices: the first `first` spans long, the others {@link EXPORT_SLICE}. */
function cut(batch: ReadableSpan[], first: number): ReadableSpan[][] {
  const out = [batch.slice(0, first)];
  for (let at = first; at < batch.length; at += EXPORT_SLICE) out.push(batch.slice(at, at + EXPORT_SLICE));
  return out;
}

/**
 * Hand `batch` to the exporter in slices, a macrotask apart: serialising a whole batch at once held the app's
 * event loop 23 ms (512 spans, the first export). The slices still waiting stay in `handing`, where the flush at
 * exit sees them; a slice it wrote meanwhile is not handed again. (The first slice of all is small: the exporter's
 * code is still cold.) Resolves with whether every slice handed was exported.
 */
export async function handInSlices(host: SliceHost, batch: ReadableSpan[]): Promise<boolean> {
  const all = cut(batch, host.ledger.handed === 0 ? COLD_SLICE : EXPORT_SLICE);
  // An exporter that takes a request encoded has each slice encoded a part per macrotask, and handed over in
  // one of its own; any other is handed a slice a macrotask, the first at once.
  const encodes = host.exporter.exportEncoded !== undefined;
  for (const slice of all) host.handing.add(slice);
  const sent: Promise<boolean>[] = [];
  for (const [i, slice] of all.entries()) {
    const request = encodes ? await encodeInTurns(slice) : undefined;
    if (encodes || i > 0) await nextTurn();
    if (host.handing.delete(slice)) sent.push(exportSlice(host, slice, request));
  }
  return (await Promise.all(sent)).every((ok) => ok);
}

/**
 * The slice's OTLP/JSON (its pieces), {@link ENCODE_PART} spans a macrotask; undefined if the encoder threw
 * (reported: the exporter then serialises the slice itself).
 */
async function encodeInTurns(slice: ReadableSpan[]): Promise<readonly string[] | undefined> {
  try {
    const parts = encodeTraceRequestInParts(slice, ENCODE_PART);
    for (;;) {
      const next = parts.next();
      if (next.done === true) return next.value;
      await nextTurn();
    }
  } catch (error) {
    reportInternalError('export encoding', error);
    return undefined;
  }
}

/**
 * Hand one slice of a batch to the exporter, as the `request` (its OTLP/JSON's pieces) when it was encoded
 * beforehand; resolves (never rejects) with whether it was exported.
 */
function exportSlice(host: SliceHost, batch: ReadableSpan[], request?: readonly string[]): Promise<boolean> {
  const { settled, finish } = host.ledger.outcome(batch.length);
  const { exporter } = host;
  try {
    // Out of the app's context: an export started from a tool body (a flush after its commit) is not the
    // tool's HTTP request (the commit detector and the guard's fence look for the tool in the context).
    context.with(suppressTracing(ROOT_CONTEXT), () => (request !== undefined && exporter.exportEncoded !== undefined ? exporter.exportEncoded(batch, request, finish) : exporter.export(batch, finish)));
  } catch (error) {
    finish({ code: ExportResultCode.FAILED, error: error as Error });
  }
  return settled;
}
