import { diag } from '@opentelemetry/api';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { loadOptionalPeer, type OptionalPeer } from '../optional-peer.js';
import type { ExportResult } from '../otel-compat.js';
import type { ReadableSpan } from '../provider/sdk-types.js';
import { encodeTraceRequest, utf8 } from './otlp-json-encoder.js';
import type { SyncCapableExporter } from './sync-capable-exporter.js';

/** The OTLP/HTTP exporter's package: an optional peer dependency, loaded only when spans go to a collector. */
export const OTLP_EXPORTER_PACKAGE = '@opentelemetry/exporter-trace-otlp-http';

/** Requests the OTLP client may have in flight (its default is 30); beyond it, it refuses an export. */
const OTLP_CONCURRENCY = 100;

/**
 * The exporter takes an export while others run, up to {@link OTLP_CONCURRENCY} requests in flight: a
 * burst that fills the span queue hands it a batch at once (queue.ts), rather than spans dropped, while the
 * collector keeps up. Bounded: at most 100 requests of 64 spans serialised, a few MB.
 */
function concurrent(base: OTLPTraceExporter): SyncCapableExporter {
  return Object.assign(base, { acceptsConcurrentExports: true, maxConcurrentExports: OTLP_CONCURRENCY });
}

type Send = (data: Uint8Array, timeoutMillis: number) => Promise<unknown>;
interface RetryingTransportShape {
  retry?: (data: Uint8Array, timeoutMillis: number, inMillis: number) => Promise<unknown>;
  _transport?: { send?: Send };
}

/**
 * The OTLP/HTTP trace exporter, its package an optional peer loaded here, at the first use (a process whose
 * spans go to files never loads it), or why it cannot be loaded.
 */
export function createOtlpExporter(config: ConstructorParameters<typeof OTLPTraceExporter>[0]): OptionalPeer<SyncCapableExporter> {
  const peer = loadOptionalPeer<typeof import('@opentelemetry/exporter-trace-otlp-http')>(OTLP_EXPORTER_PACKAGE);
  if (!('module' in peer)) return peer;
  return { module: retryingOffTheLoop(takingEncoded(concurrent(new peer.module.OTLPTraceExporter({ concurrencyLimit: OTLP_CONCURRENCY, ...config })))) };
}

/** Where a batch handed to the client carries its request, encoded beforehand. */
const ENCODED = Symbol('afterstop.encoded');

interface SerializerShape {
  serializeRequest(items: unknown): Uint8Array | undefined;
  deserializeResponse(data: Uint8Array): unknown;
}

/**
 * An OTLP/HTTP trace exporter that takes a request encoded beforehand (the queue's `exportEncoded`: its
 * OTLP/JSON made a few spans a macrotask, otlp-json-encoder.ts, the same bytes as the client's
 * JsonTraceSerializer): its client then only sends it, and the serialising no longer shares a macrotask
 * with the request. The client's serialiser returns those bytes for the batch that carries them, and
 * serialises any other batch itself.
 *
 * The one internal shape relied on (checked at run time, with the serialiser found to write this JSON;
 * without it, export() serialises as before): the exporter's delegate's `_serializer`, with
 * `serializeRequest` and `deserializeResponse` (@opentelemetry/otlp-exporter-base 0.2xx).
 */
function takingEncoded(exporter: SyncCapableExporter): SyncCapableExporter {
  const delegate = (exporter as unknown as { _delegate?: { _serializer?: Partial<SerializerShape> } })._delegate;
  const serializer = delegate?._serializer;
  if (delegate === undefined || typeof serializer?.serializeRequest !== 'function' || typeof serializer.deserializeResponse !== 'function') {
    diag.debug('afterstop: the OTLP exporter has no serialiser where expected; it serialises each export itself');
    return exporter;
  }
  const own = serializer as SerializerShape;
  try {
    const empty = own.serializeRequest([]);
    if (empty === undefined || new TextDecoder().decode(empty) !== encodeTraceRequest([])) return exporter;
  } catch {
    return exporter;
  }
  delegate._serializer = {
    serializeRequest: (items: unknown) => (items as { [ENCODED]?: Uint8Array })[ENCODED] ?? own.serializeRequest(items),
    deserializeResponse: (data: Uint8Array) => own.deserializeResponse(data),
  };
  return Object.assign(exporter, {
    exportEncoded(spans: ReadableSpan[], request: readonly string[], resultCallback: (result: ExportResult) => void): void {
      exporter.export(Object.assign([...spans], { [ENCODED]: utf8(request) }), resultCallback);
    },
  });
}

/**
 * An OTLP/HTTP trace exporter whose retries never keep the process alive. Its client retries a refused or
 * 5xx export on timers of its own (1 s, 1.5 s, 2.25 s... up to the export's timeout) that hold the event
 * loop: a process whose collector refused connections exited 7.5-8.5 s after its work. Here they are
 * unref'd, and each retry tells the queue that the collector is failing (`onRetrying`): a flush someone
 * waits for holds the process by its own bounded timer, nothing else does.
 *
 * The one internal shape relied on (checked at run time; without it the client's own timers stay, and the
 * exporter works as before): the exporter's delegate's `_transport`, the client's RetryingTransport, with a
 * `retry(data, timeout, inMillis)` method and the HTTP transport it wraps as its `_transport`
 * (@opentelemetry/otlp-exporter-base 0.2xx).
 */
function retryingOffTheLoop(exporter: SyncCapableExporter): SyncCapableExporter {
  const transport = (exporter as unknown as { _delegate?: { _transport?: RetryingTransportShape } })._delegate?._transport;
  const inner = transport?._transport;
  if (transport === undefined || typeof transport.retry !== 'function' || typeof inner?.send !== 'function') {
    diag.debug('afterstop: the OTLP exporter has no retrying transport where expected; its retry timers may hold the exit');
    return exporter;
  }
  const send = inner.send.bind(inner);
  transport.retry = (data, timeoutMillis, inMillis) => {
    try {
      exporter.onRetrying?.();
    } catch {
      // the queue's callback never throws; nothing to do if it did
    }
    return new Promise((resolve, reject) => {
      setTimeout(() => void send(data, timeoutMillis).then(resolve, reject), inMillis).unref();
    });
  };
  return exporter;
}
