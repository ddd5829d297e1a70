import type { Attributes, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '../provider/sdk-types.js';
import { JsonBytes } from './json-bytes.js';

/**
 * Spans as an OTLP/JSON `ExportTraceServiceRequest`: the trace files' line format, the OpenTelemetry
 * Collector file exporter's. The same text, byte for byte, as `JsonTraceSerializer.serializeRequest` of
 * `@opentelemetry/otlp-transformer` 0.2xx (test/instrumentation/export/otlp-json-encoder.test.ts holds
 * them equal over generated spans): grouped by resource (the same object) and then by scope (name,
 * version, schema URL), ids as hex, times as decimal strings of nanoseconds, fields left out of the JSON
 * where the transformer leaves them undefined.
 *
 * Written straight into bytes (json-bytes.ts), as the exporters send and write them.
 *
 * Written here rather than imported: the transformer's package loads its log and metric SDKs with it
 * (sdk-logs, sdk-metrics, api-logs), some 20 MB installed and a few hundred modules at startup, for what
 * is the file format's own encoding.
 */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): string {
  return encodeTraceRequestBytes(spans).toString();
}

/** {@link encodeTraceRequest}'s text as UTF-8 bytes, as an exporter sends or writes it. */
export function encodeTraceRequestBytes(spans: readonly ReadableSpan[]): Buffer {
  const parts = encodeTraceRequestInParts(spans, Number.POSITIVE_INFINITY);
  for (;;) {
    const next = parts.next();
    if (next.done === true) return next.value;
  }
}

/** Room for a span of afterstop's (about a kilobyte as JSON), so that a slice's buffer seldom grows. */
const SPAN_BYTES = 1200;

/**
 * The same bytes as {@link encodeTraceRequestBytes}, made `partSize` spans at a time: the generator yields
 * after each part and returns the request. The export queue runs a part per macrotask (queue.ts), so that
 * serialising a batch never holds the app's event loop for long.
 */
export function* encodeTraceRequestInParts(spans: readonly ReadableSpan[], partSize: number): Generator<void, Buffer, void> {
  const out = new JsonBytes(spans.length * SPAN_BYTES + 256);
  out.ascii('{"resourceSpans":[');
  let inPart = 0;
  let firstResource = true;
  for (const [res, byScope] of grouped(spans)) {
    out.ascii(firstResource ? '{"resource":' : ',{"resource":');
    firstResource = false;
    resource(out, res);
    out.ascii(',"scopeSpans":[');
    let firstScope = true;
    for (const list of byScope.values()) {
      const first = list[0]!.instrumentationScope;
      out.ascii(firstScope ? '{"scope":' : ',{"scope":');
      firstScope = false;
      scope(out, first);
      out.ascii(',"spans":[');
      for (let i = 0; i < list.length; i++) {
        if (i > 0) out.ascii(',');
        span(out, list[i]!);
        if (++inPart >= partSize) {
          inPart = 0;
          yield;
        }
      }
      out.ascii(']');
      trailingMember(out, ',"schemaUrl":', first.schemaUrl);
      out.ascii('}');
    }
    out.ascii(']');
    trailingMember(out, ',"schemaUrl":', res.schemaUrl ? res.schemaUrl : undefined);
    out.ascii('}');
  }
  out.ascii(']}');
  return out.result();
}

/** `prefix` (`,"key":`) and the value, after an object's other members; nothing for undefined. */
function trailingMember(out: JsonBytes, prefix: string, value: string | undefined): void {
  if (value === undefined) return;
  out.ascii(prefix);
  out.string(value);
}

/** Span flags (OTLP): the low 8 bits are the W3C trace flags; bit 8 says whether bit 9 (remote parent) is known. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const flags = (traceFlags: number, isRemote: boolean | undefined): number => (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);

const NANOS_PER_SECOND = 1_000_000_000n;

/** A time as a decimal string of nanoseconds since the epoch. */
function nanos(out: JsonBytes, time: HrTime): void {
  const seconds = Math.trunc(time[0]);
  const ns = Math.trunc(time[1]);
  out.ascii('"');
  if (seconds >= 0 && ns >= 0 && ns < 1e9 && Number.isSafeInteger(seconds)) {
    // seconds, then the nanoseconds as nine digits: no BigInt and no string made (the common case).
    if (seconds > 0) {
      out.unsigned(seconds);
      out.unsigned(ns, 9);
    } else out.unsigned(ns);
  } else out.ascii((BigInt(seconds) * NANOS_PER_SECOND + BigInt(ns)).toString());
  out.ascii('"');
}

function anyValue(out: JsonBytes, value: unknown): void {
  switch (typeof value) {
    case 'string':
      out.ascii('{"stringValue":');
      out.string(value);
      out.ascii('}');
      return;
    case 'number':
      // NaN and ±Infinity are doubles, written as JSON null as JSON.stringify writes them.
      out.ascii(Number.isInteger(value) ? '{"intValue":' : '{"doubleValue":');
      out.number(value);
      out.ascii('}');
      return;
    case 'boolean':
      out.ascii(value ? '{"boolValue":true}' : '{"boolValue":false}');
      return;
  }
  if (value instanceof Uint8Array) {
    out.ascii('{"bytesValue":');
    out.string(Buffer.from(value).toString('base64'));
    out.ascii('}');
  } else if (Array.isArray(value)) {
    // Every index, a hole as an empty value, as the transformer's Array.from writes it.
    out.ascii('{"arrayValue":{"values":[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.ascii(',');
      anyValue(out, value[i]);
    }
    out.ascii(']}}');
  } else if (typeof value === 'object' && value !== null) {
    out.ascii('{"kvlistValue":{"values":');
    attributes(out, value as Record<string, unknown>);
    out.ascii('}}');
  } else out.ascii('{}');
}

function attributes(out: JsonBytes, from: Attributes | Record<string, unknown>): void {
  out.ascii('[');
  const keys = Object.keys(from);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    out.ascii(i > 0 ? ',{"key":' : '{"key":');
    out.string(key);
    out.ascii(',"value":');
    anyValue(out, (from as Record<string, unknown>)[key]);
    out.ascii('}');
  }
  out.ascii(']');
}

/** `list`'s items by `write`, a hole as null (as JSON.stringify writes what map keeps). */
function array<T>(out: JsonBytes, list: readonly T[], write: (out: JsonBytes, item: T) => void): void {
  out.ascii('[');
  for (let i = 0; i < list.length; i++) {
    if (i > 0) out.ascii(',');
    if (i in list) write(out, list[i]!);
    else out.ascii('null');
  }
  out.ascii(']');
}

function event(out: JsonBytes, e: TimedEvent): void {
  out.open();
  out.key('attributes');
  if (e.attributes) attributes(out, e.attributes);
  else out.ascii('[]');
  out.field('name', e.name);
  out.key('timeUnixNano');
  nanos(out, e.time);
  out.field('droppedAttributesCount', e.droppedAttributesCount || 0);
  out.close();
}

function link(out: JsonBytes, l: Link): void {
  const context: SpanContext = l.context;
  out.open();
  out.key('attributes');
  if (l.attributes) attributes(out, l.attributes);
  else out.ascii('[]');
  out.field('spanId', context.spanId);
  out.field('traceId', context.traceId);
  out.field('traceState', context.traceState?.serialize());
  out.field('droppedAttributesCount', l.droppedAttributesCount || 0);
  out.field('flags', flags(context.traceFlags, context.isRemote));
  out.close();
}

function span(out: JsonBytes, s: ReadableSpan): void {
  const context = s.spanContext();
  const parent = s.parentSpanContext;
  out.open();
  out.field('traceId', context.traceId);
  out.field('spanId', context.spanId);
  out.field('parentSpanId', parent?.spanId ? parent.spanId : undefined);
  out.field('traceState', context.traceState?.serialize());
  out.field('name', s.name);
  // OTLP's kinds are the API's plus one: 0 is unspecified.
  out.field('kind', s.kind == null ? 0 : s.kind + 1);
  out.key('startTimeUnixNano');
  nanos(out, s.startTime);
  out.key('endTimeUnixNano');
  nanos(out, s.endTime);
  out.key('attributes');
  attributes(out, s.attributes);
  out.field('droppedAttributesCount', s.droppedAttributesCount);
  out.key('events');
  array(out, s.events, event);
  out.field('droppedEventsCount', s.droppedEventsCount);
  out.key('status');
  out.open();
  out.field('code', s.status.code);
  out.field('message', s.status.message);
  out.close();
  out.key('links');
  array(out, s.links, link);
  out.field('droppedLinksCount', s.droppedLinksCount);
  out.field('flags', flags(context.traceFlags, parent?.isRemote));
  out.close();
}

function scope(out: JsonBytes, of: ReadableSpan['instrumentationScope']): void {
  out.open();
  out.field('name', of.name);
  out.field('version', of.version);
  const withAttributes = of as { attributes?: Attributes; droppedAttributesCount?: number };
  if (withAttributes.attributes && Object.keys(withAttributes.attributes).length > 0) {
    out.key('attributes');
    attributes(out, withAttributes.attributes);
    out.field('droppedAttributesCount', withAttributes.droppedAttributesCount ?? 0);
  }
  out.close();
}

function resource(out: JsonBytes, of: ReadableSpan['resource']): void {
  out.open();
  out.key('attributes');
  attributes(out, of.attributes);
  out.field('droppedAttributesCount', 0);
  if (of.schemaUrl) out.field('schemaUrl', of.schemaUrl);
  out.close();
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
