import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { context, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type HrTime, type Link, type SpanContext } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type TimedEvent } from '@opentelemetry/sdk-trace-base';
import { encodeTraceRequest, encodeTraceRequestInParts, utf8 } from '../../export/otlp-json-encoder.js';

/**
 * The trace files' encoder against the OpenTelemetry transformer it replaces (a devDependency, kept for
 * this test only): the same bytes for every batch, so that files written before and after read the same.
 */
const RUNS = Number(process.env['PROPERTY_RUNS'] ?? 300);

/**
 * The request made `partSize` spans at a time (as the export queue runs it, a part per macrotask), as the
 * exporters write it (its pieces as UTF-8 in one buffer), and the parts it took.
 */
function inParts(spans: readonly ReadableSpan[], partSize: number): { bytes: Buffer; pauses: number } {
  const parts = encodeTraceRequestInParts(spans, partSize);
  for (let pauses = 0; ; pauses++) {
    const next = parts.next();
    if (next.done === true) return { bytes: utf8(next.value), pauses };
  }
}

function expectSameBytes(spans: ReadableSpan[]): void {
  const ours = Buffer.from(encodeTraceRequest(spans));
  const theirs = Buffer.from(JsonTraceSerializer.serializeRequest(spans)!);
  // As strings first: a difference is then shown where it is.
  expect(ours.toString()).toBe(theirs.toString());
  expect(ours.equals(theirs)).toBe(true);
  // Made in parts and written as bytes, the same bytes (text beyond ASCII among them), with a pause after each part.
  for (const partSize of [1, 3]) {
    const { bytes, pauses } = inParts(spans, partSize);
    expect(bytes.toString()).toBe(theirs.toString());
    expect(bytes.equals(theirs)).toBe(true);
    expect(pauses).toBe(Math.floor(spans.length / partSize));
  }
}

const hex = (bytes: number): fc.Arbitrary<string> => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const hrTime: fc.Arbitrary<HrTime> = fc.tuple(fc.integer({ min: 0, max: 4_000_000_000 }), fc.integer({ min: 0, max: 999_999_999 }));
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('', 'ツール', '👩‍👩‍👧', '\u0000\u001b"\\\n', '\ud800'));
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, Number.MAX_SAFE_INTEGER, 2 ** 63, -(2 ** 63), 1e21, 5e-324, 0.1));
const scalar = fc.oneof(text, number, fc.boolean(), fc.constantFrom(undefined, null), fc.uint8Array({ maxLength: 8 }));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 3 })),
}));
const attributes: fc.Arbitrary<Attributes> = fc.dictionary(text, value, { maxKeys: 6 }) as fc.Arbitrary<Attributes>;
const traceState = fc.option(
  fc.constantFrom('', 'vendor=value', 'a=1,b=2', 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE').map((s) => new TraceState(s)),
  { nil: undefined },
);
const spanContext: fc.Arbitrary<SpanContext> = fc
  .record({
    traceId: hex(16),
    spanId: hex(8),
    traceFlags: fc.constantFrom(TraceFlags.NONE, TraceFlags.SAMPLED, 0xff),
    isRemote: fc.option(fc.boolean(), { nil: undefined }),
    traceState,
  })
  .map(({ traceState: state, isRemote, ...rest }) => ({ ...rest, ...(state ? { traceState: state } : {}), ...(isRemote === undefined ? {} : { isRemote }) }));
const droppedCount = fc.option(fc.nat(5), { nil: undefined });
const event: fc.Arbitrary<TimedEvent> = fc.record({ name: text, time: hrTime, attributes: fc.option(attributes, { nil: undefined }), droppedAttributesCount: droppedCount }, { requiredKeys: ['name', 'time'] });
const link: fc.Arbitrary<Link> = fc.record({ context: spanContext, attributes: fc.option(attributes, { nil: undefined }), droppedAttributesCount: droppedCount }, { requiredKeys: ['context'] });

/** A few resources and scopes, shared by the spans of a batch (grouping is by the resource object). */
const resources: Resource[] = [
  resourceFromAttributes({ 'service.name': 'encoder-test', 'afterstop.schema.version': '0.1' }),
  resourceFromAttributes({ 'service.name': 'other', 'process.pid': 42, 'host.arch': 'x64', tags: ['a', 'b'] }),
  resourceFromAttributes({}, { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' }),
  resourceFromAttributes({ 'service.name': 'encoder-test', 'afterstop.schema.version': '0.1' }),
];
const scopes: ReadableSpan['instrumentationScope'][] = [
  { name: 'afterstop', version: '0.1.0' },
  { name: 'afterstop' },
  { name: 'afterstop', version: '0.1.0', schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' },
  { name: '@ai-sdk/ツール', version: '' },
  { name: 'scoped', version: '1', attributes: { 'scope.kind': 'test', n: 1.5 } } as ReadableSpan['instrumentationScope'],
  { name: 'scoped-empty', version: '1', attributes: {} } as ReadableSpan['instrumentationScope'],
];

const span: fc.Arbitrary<ReadableSpan> = fc
  .record({
    name: text,
    context: spanContext,
    parent: fc.option(spanContext, { nil: undefined }),
    kind: fc.option(fc.constantFrom(SpanKind.INTERNAL, SpanKind.SERVER, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER), { nil: undefined }),
    startTime: hrTime,
    endTime: hrTime,
    attributes,
    events: fc.array(event, { maxLength: 3 }),
    links: fc.array(link, { maxLength: 3 }),
    status: fc.record({ code: fc.constantFrom(SpanStatusCode.UNSET, SpanStatusCode.OK, SpanStatusCode.ERROR), message: fc.option(text, { nil: undefined }) }, { requiredKeys: ['code'] }),
    dropped: fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3)),
    resource: fc.nat(resources.length - 1),
    scope: fc.nat(scopes.length - 1),
  })
  .map((r) => ({
    name: r.name,
    kind: r.kind as SpanKind,
    spanContext: () => r.context,
    parentSpanContext: r.parent,
    startTime: r.startTime,
    endTime: r.endTime,
    status: r.status,
    attributes: r.attributes,
    links: r.links,
    events: r.events,
    duration: [0, 0] as HrTime,
    ended: true,
    resource: resources[r.resource]!,
    instrumentationScope: scopes[r.scope]!,
    droppedAttributesCount: r.dropped[0],
    droppedEventsCount: r.dropped[1],
    droppedLinksCount: r.dropped[2],
  }));

describe('the OTLP/JSON encoder of the trace files', () => {
  it('writes the same bytes as the OpenTelemetry JSON serializer for generated batches', () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 12 }), (spans) => expectSameBytes(spans)),
      { numRuns: RUNS },
    );
  });

  it('writes the same bytes for spans a real SDK tracer made: parents, events, links, status, exceptions, dropped counts', () => {
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resources[0]!,
      spanProcessors: [new SimpleSpanProcessor(memory)],
      spanLimits: { attributeCountLimit: 3, eventCountLimit: 2, linkCountLimit: 1 },
    });
    const tracer = provider.getTracer('afterstop', '0.1.0');
    const root = tracer.startSpan('invoke_agent ツール', { kind: SpanKind.SERVER, attributes: { 'gen_ai.agent.name': 'support', big: 2 ** 60, ratio: 0.25, flags: [true, false] } });
    const rootContext = root.spanContext();
    const child = tracer.startSpan(
      'execute_tool refund',
      { links: [{ context: rootContext, attributes: { 'link.reason': 'follows' } }, { context: rootContext }], attributes: { a: 1, b: 'two', c: [1, 2, 3], d: 'dropped', e: 'dropped' } },
      trace.setSpan(context.active(), root),
    );
    child.addEvent('afterstop.stop', { at: 'tool' });
    child.addEvent('second', [1, 2]);
    child.addEvent('third, dropped');
    child.recordException(new Error('boom "quoted"'));
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'refund failed' });
    child.end();
    root.setStatus({ code: SpanStatusCode.OK });
    root.end();
    tracer.startSpan('empty attributes', { attributes: {} }).end();
    provider.getTracer('other-scope').startSpan('no version').end();
    const spans = memory.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['execute_tool refund', 'invoke_agent ツール', 'empty attributes', 'no version']);
    expect(spans[0]!.droppedAttributesCount).toBeGreaterThan(0);
    expectSameBytes(spans);
  });

  it('writes the same bytes for hand-picked edge cases', () => {
    const base = fc.sample(span, { numRuns: 1, seed: 47 })[0]!;
    const withParent = (parent: SpanContext | undefined): ReadableSpan => ({ ...base, parentSpanContext: parent });
    const cases: ReadableSpan[][] = [
      [],
      [{ ...base, attributes: {} }],
      [{ ...base, name: '', attributes: { '': '' } }],
      [{ ...base, name: 'ユニコード 👩‍👩‍👧 \u2028\u2029', attributes: { ключ: 'значение', emoji: '🛑' } }],
      [{ ...base, attributes: { big: Number.MAX_SAFE_INTEGER, bigger: 2 ** 70, negative: -(2 ** 53), zero: -0, tiny: 5e-324 } }],
      [{ ...base, attributes: { nan: NaN, inf: Infinity, ninf: -Infinity, doubles: [0.5, NaN, Infinity] } as unknown as Attributes }],
      [{ ...base, attributes: { nested: [[1, ['two', [true]]], [], [null, undefined]] } as unknown as Attributes }],
      [{ ...base, attributes: { bytes: new Uint8Array([0, 255, 10]), object: { a: { b: [1] } }, fn: () => 1, big: 10n } as unknown as Attributes }],
      [withParent(undefined)],
      [withParent({ traceId: '0'.repeat(32), spanId: '', traceFlags: 1 })],
      [withParent({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1, isRemote: true })],
      [
        {
          ...base,
          links: [
            { context: { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), traceFlags: 0, isRemote: false, traceState: new TraceState('k=v') }, attributes: { 'link.kind': 'retry', n: [1, 2] }, droppedAttributesCount: 2 },
          ],
        },
      ],
      [{ ...base, kind: undefined as unknown as SpanKind, status: { code: SpanStatusCode.ERROR, message: '' } }],
      [{ ...base, startTime: [1.9, 999_999_999.7], endTime: [0, 0] }],
      // Times written without BigInt when normal, with it otherwise (nanoseconds past a second, seconds past 2^53).
      [{ ...base, startTime: [0, 5], endTime: [1, 1_500_000_000] }],
      [{ ...base, startTime: [2 ** 53 + 2, 7], endTime: [3, 0] }],
      // A hole in an array attribute: an empty value, as the transformer writes it.
      // biome-ignore lint/suspicious/noSparseArray: the hole is the case
      [{ ...base, attributes: { sparse: [1, , 3] } as unknown as Attributes }],
      [
        { ...base, resource: resources[0]! },
        { ...base, resource: resources[3]! },
        { ...base, resource: resources[0]!, instrumentationScope: scopes[1]! },
        { ...base, resource: resources[0]! },
      ],
    ];
    for (const spans of cases) expectSameBytes(spans);
  });
});
