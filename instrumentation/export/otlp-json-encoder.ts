import type { Attributes, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '../provider/sdk-types.js';

/**
 * Spans as an OTLP/JSON `ExportTraceServiceRequest`: the trace files' line format, the OpenTelemetry
 * Collector file exporter's. The same text, byte for byte, as `JsonTraceSerializer.serializeRequest` of
 * `@opentelemetry/otlp-transformer` 0.2xx (test/instrumentation/export/otlp-json-encoder.test.ts holds
 * them equal over generated spans): grouped by resource (the same object) and then by scope (name,
 * version, schema URL), ids as hex, times as decimal strings of nanoseconds, fields left out of the JSON
 * where the transformer leaves them undefined.
 *
 * Written here rather than imported: the transformer's package loads its log and metric SDKs with it
 * (sdk-logs, sdk-metrics, api-logs), some 20 MB installed and a few hundred modules at startup, for what
 * is the file format's own encoding.
 */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): string {
  return traceRequestPieces(spans).join('');
}

/** {@link encodeTraceRequest}'s text as pieces in order, at once (an exporter writes them as bytes: {@link utf8}). */
export function traceRequestPieces(spans: readonly ReadableSpan[]): string[] {
  const parts = encodeTraceRequestInParts(spans, Number.POSITIVE_INFINITY);
  for (;;) {
    const next = parts.next();
    if (next.done === true) return next.value;
  }
}

/**
 * The request's text as pieces in order ({@link encodeTraceRequest}'s text once joined), made `partSize`
 * spans at a time: the generator yields after each part and returns the pieces. The export queue runs a
 * part per macrotask (slices.ts), so that serialising a batch never holds the app's event loop for long.
 * The pieces are not joined here: an exporter writes them as bytes ({@link utf8}), and the joined text was
 * one more copy of every request in the app's heap.
 *
 * Each span goes through JSON.stringify, native from its first call, rather than a writer in JS: an agent
 * exports seldom (some 125 slices in the bench's loop of 2,000 runs), so JS code here runs cold, and a byte
 * writer took 1-5 ms a part while still interpreted, against 0.1-0.6 ms (docs/benchmarks.md).
 */
export function* encodeTraceRequestInParts(spans: readonly ReadableSpan[], partSize: number): Generator<void, string[], void> {
  // JSON.stringify of an object is its members' texts joined: each span is stringified alone (a part's
  // work) and the request's text put around them, byte for byte what stringifying the whole gives.
  const out: string[] = ['{"resourceSpans":['];
  let inPart = 0;
  let firstResource = true;
  for (const [res, byScope] of grouped(spans)) {
    const encoded = resource(res);
    out.push(firstResource ? '{"resource":' : ',{"resource":', JSON.stringify(encoded), ',"scopeSpans":[');
    firstResource = false;
    let firstScope = true;
    for (const list of byScope.values()) {
      const first = list[0]!.instrumentationScope;
      out.push(firstScope ? '{"scope":' : ',{"scope":', JSON.stringify(scope(first)), ',"spans":[');
      firstScope = false;
      for (let i = 0; i < list.length; i++) {
        if (i > 0) out.push(',');
        out.push(JSON.stringify(span(list[i]!)));
        if (++inPart >= partSize) {
          inPart = 0;
          yield;
        }
      }
      out.push(']', member('schemaUrl', first.schemaUrl), '}');
    }
    out.push(']', member('schemaUrl', encoded.schemaUrl), '}');
  }
  out.push(']}');
  return out;
}

/** Pieces of text, then `end` (a trace file's newline), as UTF-8 in one buffer. */
export function utf8(pieces: readonly string[], end = ''): Buffer {
  let length = Buffer.byteLength(end);
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at);
  bytes.write(end, at);
  return bytes;
}

/** `,"key":value` as JSON.stringify writes an object's member; nothing for undefined (which it leaves out). */
const member = (key: string, value: string | undefined): string => (value === undefined ? '' : `,${JSON.stringify(key)}:${JSON.stringify(value)}`);

type AnyValue =
  | { stringValue: string }
  | { doubleValue: number }
  | { intValue: number }
  | { boolValue: boolean }
  | { bytesValue: string }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } }
  | Record<string, never>;
interface KeyValue {
  key: string;
  value: AnyValue;
}

/** Span flags (OTLP): the low 8 bits are the W3C trace flags; bit 8 says whether bit 9 (remote parent) is known. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const flags = (traceFlags: number, isRemote: boolean | undefined): number => (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);

const NANOS_PER_SECOND = 1_000_000_000n;
const nanos = (time: HrTime): string => (BigInt(Math.trunc(time[0])) * NANOS_PER_SECOND + BigInt(Math.trunc(time[1]))).toString();

function anyValue(value: unknown): AnyValue {
  switch (typeof value) {
    case 'string':
      return { stringValue: value };
    case 'number':
      // NaN and ±Infinity are doubles, written as JSON null as JSON.stringify writes them.
      return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
    case 'boolean':
      return { boolValue: value };
  }
  if (value instanceof Uint8Array) return { bytesValue: Buffer.from(value).toString('base64') };
  // Array.from, not map: a hole is an empty value, as the transformer writes it (map keeps it, and JSON writes null).
  if (Array.isArray(value)) return { arrayValue: { values: Array.from(value, anyValue) } };
  if (typeof value === 'object' && value !== null) {
    return { kvlistValue: { values: Object.keys(value).map((key) => ({ key, value: anyValue((value as Record<string, unknown>)[key]) })) } };
  }
  return {};
}

const attributes = (from: Attributes): KeyValue[] => Object.keys(from).map((key) => ({ key, value: anyValue(from[key]) }));

function event(e: TimedEvent): object {
  return {
    attributes: e.attributes ? attributes(e.attributes) : [],
    name: e.name,
    timeUnixNano: nanos(e.time),
    droppedAttributesCount: e.droppedAttributesCount || 0,
  };
}

function link(l: Link): object {
  const context: SpanContext = l.context;
  return {
    attributes: l.attributes ? attributes(l.attributes) : [],
    spanId: context.spanId,
    traceId: context.traceId,
    traceState: context.traceState?.serialize(),
    droppedAttributesCount: l.droppedAttributesCount || 0,
    flags: flags(context.traceFlags, context.isRemote),
  };
}

function span(s: ReadableSpan): object {
  const context = s.spanContext();
  const parent = s.parentSpanContext;
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    parentSpanId: parent?.spanId ? parent.spanId : undefined,
    traceState: context.traceState?.serialize(),
    name: s.name,
    // OTLP's kinds are the API's plus one: 0 is unspecified.
    kind: s.kind == null ? 0 : s.kind + 1,
    startTimeUnixNano: nanos(s.startTime),
    endTimeUnixNano: nanos(s.endTime),
    attributes: attributes(s.attributes),
    droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.map(event),
    droppedEventsCount: s.droppedEventsCount,
    status: { code: s.status.code, message: s.status.message },
    links: s.links.map(link),
    droppedLinksCount: s.droppedLinksCount,
    flags: flags(context.traceFlags, parent?.isRemote),
  };
}

function scope(of: ReadableSpan['instrumentationScope']): object {
  const result: Record<string, unknown> = { name: of.name, version: of.version };
  const withAttributes = of as { attributes?: Attributes; droppedAttributesCount?: number };
  if (withAttributes.attributes && Object.keys(withAttributes.attributes).length > 0) {
    result['attributes'] = attributes(withAttributes.attributes);
    result['droppedAttributesCount'] = withAttributes.droppedAttributesCount ?? 0;
  }
  return result;
}

function resource(of: ReadableSpan['resource']): { attributes: KeyValue[]; droppedAttributesCount: number; schemaUrl?: string } {
  const result: { attributes: KeyValue[]; droppedAttributesCount: number; schemaUrl?: string } = { attributes: attributes(of.attributes), droppedAttributesCount: 0 };
  if (of.schemaUrl) result.schemaUrl = of.schemaUrl;
  return result;
}

/** Spans by resource (the same object), then by scope (name, version, schema URL), each in the order its first span comes. */
function grouped(spans: readonly ReadableSpan[]): Map<ReadableSpan['resource'], Map<string, ReadableSpan[]>> {
  const byResource = new Map<ReadableSpan['resource'], Map<string, ReadableSpan[]>>();
  // A tracer's spans share its scope object: its key is made once for a run of them.
  let lastScope: ReadableSpan['instrumentationScope'] | undefined;
  let key = '';
  for (const s of spans) {
    let byScope = byResource.get(s.resource);
    if (byScope === undefined) byResource.set(s.resource, (byScope = new Map()));
    if (s.instrumentationScope !== lastScope) {
      lastScope = s.instrumentationScope;
      const { name, version, schemaUrl } = lastScope;
      key = `${name}@${version || ''}:${schemaUrl || ''}`;
    }
    const list = byScope.get(key);
    if (list === undefined) byScope.set(key, [s]);
    else list.push(s);
  }
  return byResource;
}
