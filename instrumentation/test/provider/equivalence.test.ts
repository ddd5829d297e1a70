import { context, diag, DiagLogLevel, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { suppressTracing } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes as sdkResource } from '@opentelemetry/resources';
import { BasicTracerProvider, type ReadableSpan as SdkReadableSpan, type SpanProcessor as SdkSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceFromAttributes } from '../../provider/resource.js';
import type { ReadableSpan } from '../../provider/sdk-types.js';
import { AfterstopTracerProvider } from '../../provider/tracer-provider.js';

/**
 * afterstop's own tracer provider against the SDK's (sdk-trace-base 2.x BasicTracerProvider, the base of
 * the NodeTracerProvider afterstop registered before): the same scenario through both, the exported
 * records compared field by field (ids and clock times aside), and the diagnostics each said.
 */

const manager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  manager.enable();
  context.setGlobalContextManager(manager);
});
afterAll(() => {
  context.disable();
  diag.disable();
});

const RESOURCE: Attributes = { 'service.name': 'equivalence', 'afterstop.schema.version': '1', 'process.pid': 1 };

/** A span processor that keeps what ended, in order. */
function collector() {
  const ended: ReadableSpan[] = [];
  const started: string[] = [];
  const processor = {
    onStart: (span: { name: string }) => void started.push(span.name),
    onEnd: (span: ReadableSpan) => void ended.push(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  return { ended, started, processor };
}

/** Diagnostics said while `fn` runs, hex ids replaced by their shape. */
function said(fn: () => void): string[] {
  const lines: string[] = [];
  const record = (message: string, ...args: unknown[]) =>
    lines.push(
      [message, ...args.map((a) => (a instanceof Error ? a.message : JSON.stringify(a)))]
        .join(' ')
        .replace(/\b[0-9a-f]{32}\b/g, '<trace>')
        .replace(/\b[0-9a-f]{16}\b/g, '<span>')
        .replace(/\[\d+,\d+\]/g, '<hrtime>'),
    );
  diag.setLogger({ error: record, warn: record, info: record, debug: record, verbose: record }, { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true });
  try {
    fn();
  } finally {
    diag.disable();
  }
  return lines;
}

const EPOCH_MS = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

/** A run with a tool call, a cancel, nested spans, events, links, exceptions, attributes of every type, limits exceeded. */
function scenario(tracer: Tracer): void {
  const run = tracer.startSpan('invoke_agent planner', {
    kind: SpanKind.INTERNAL,
    attributes: {
      'a.string': 'text',
      'a.int': 42,
      'a.float': 1.5,
      'a.bool': false,
      'a.strings': ['x', 'y'],
      'a.numbers': [1, 2, 3],
      'a.bools': [true, false],
      'a.with.nulls': ['x', null, 'y'] as unknown as string[],
      'a.mixed': ['x', 1] as unknown as string[],
      'a.object': { nested: true } as unknown as string,
      'a.null': null as unknown as string,
      'a.undefined': undefined,
      '': 'empty key',
    },
  });
  const runContext = trace.setSpan(ROOT_CONTEXT, run);
  context.with(runContext, () => {
    tracer.startActiveSpan('execute_tool lookup', { kind: SpanKind.CLIENT, links: [{ context: run.spanContext(), attributes: { 'link.kind': 'caused-by', 'link.bad': {} as unknown as string } }] }, (tool) => {
      tool.setAttribute('gen_ai.tool.name', 'lookup');
      tool.setAttribute('a.invalid', { no: 1 } as unknown as string);
      tool.setAttribute('', 'empty');
      tool.setAttributes({ 'b.one': 1, 'b.two': 'two' });
      tool.addEvent('started');
      tool.addEvent('with attributes', { 'e.count': 3, 'e.bad': [1, 'x'] as unknown as number[] });
      tool.addEvent('at an epoch time', EPOCH_MS);
      tool.addEvent('at a date', new Date(EPOCH_MS));
      tool.addEvent('at an hrtime', [1_767_000_000, 123_456_789]);
      tool.addEvent('attributes and time', { 'e.k': 'v' }, new Date(EPOCH_MS));
      tool.addLink({ context: run.spanContext() });
      tool.addLinks([{ context: run.spanContext(), attributes: { n: 1 } }, { context: { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 } }]);
      const inner = tracer.startSpan('http POST');
      inner.end();
      tool.recordException(new TypeError('the tool broke'));
      tool.recordException('a string thrown');
      tool.recordException({ code: 42, message: 'with a code' });
      tool.recordException({} as Error);
      tool.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
      tool.updateName('execute_tool lookup (renamed)');
      tool.end(new Date(EPOCH_MS + 10_000));
      tool.end();
      tool.setAttribute('after.end', 1);
      tool.addEvent('after end');
    });
    const cancel = tracer.startSpan('afterstop.cancel.request', { startTime: EPOCH_MS, attributes: { 'afterstop.cancel.id': 'c1' } });
    cancel.setStatus({ code: SpanStatusCode.OK });
    cancel.setStatus({ code: SpanStatusCode.ERROR, message: 'ignored after OK' });
    cancel.setStatus({ code: SpanStatusCode.ERROR, message: 42 as unknown as string });
    cancel.end(EPOCH_MS - 5);
    const root = tracer.startSpan('a root inside the run', { root: true });
    root.end();
    const suppressed = tracer.startSpan('suppressed', {}, suppressTracing(runContext));
    suppressed.end();
  });
  // Limits: 128 attributes, events and links by default; the oldest events and links go first.
  const busy = tracer.startSpan('busy');
  for (let i = 0; i < 130; i++) busy.setAttribute(`k${i}`, i);
  busy.setAttribute('k0', 'replaced, not new');
  for (let i = 0; i < 130; i++) busy.addEvent(`event ${i}`, Object.fromEntries(Array.from({ length: i === 129 ? 130 : 1 }, (_, j) => [`a${j}`, j])));
  for (let i = 0; i < 130; i++) busy.addLink({ context: run.spanContext(), attributes: Object.fromEntries(Array.from({ length: i === 129 ? 130 : 1 }, (_, j) => [`a${j}`, j])) });
  busy.end();
  run.setStatus({ code: SpanStatusCode.UNSET });
  run.end();
}

/** The exception's stack cut to its message line: the frames name each provider's own functions. */
const withoutFrames = (attributes: Attributes | undefined): Attributes | undefined =>
  attributes && typeof attributes['exception.stacktrace'] === 'string' ? { ...attributes, 'exception.stacktrace': attributes['exception.stacktrace'].split('\n')[0] } : attributes;

/** A span's fields with ids as their order of first appearance and clock-read times as their shape. */
function normalise(spans: readonly ReadableSpan[], ids: Map<string, string>): unknown[] {
  const id = (value: string | undefined) => {
    if (value === undefined) return undefined;
    if (/^0+$/.test(value)) return value;
    if (!ids.has(value)) ids.set(value, `id${ids.size}`);
    return ids.get(value);
  };
  const ctx = (c: ReturnType<ReadableSpan['spanContext']> | undefined) => c && { traceId: id(c.traceId), spanId: id(c.spanId), traceFlags: c.traceFlags, traceState: c.traceState?.serialize(), isRemote: c.isRemote };
  const EXPLICIT = /epoch|date|hrtime|attributes and time/;
  return spans.map((span) => ({
    name: span.name,
    kind: span.kind,
    spanContext: ctx(span.spanContext()),
    parentSpanContext: ctx(span.parentSpanContext),
    status: span.status,
    attributes: span.attributes,
    links: span.links.map((link) => ({ ...link, context: ctx(link.context) })),
    events: span.events.map((event) => ({ ...event, attributes: withoutFrames(event.attributes), time: EXPLICIT.test(event.name) ? event.time : 'clock' })),
    // Times the caller gave are exact; the others are read from the clock.
    startTime: span.name === 'afterstop.cancel.request' ? span.startTime : 'clock',
    endTime: span.name === 'afterstop.cancel.request' ? span.endTime : 'clock',
    duration: span.name === 'afterstop.cancel.request' ? span.duration : span.duration.every((n) => n >= 0),
    ended: span.ended,
    resource: span.resource.attributes,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  }));
}

/** The OTLP/JSON request the exporters send, ids and clock times blanked. */
function otlp(spans: readonly ReadableSpan[]): unknown {
  const bytes = JsonTraceSerializer.serializeRequest(spans as SdkReadableSpan[]);
  const json = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  return JSON.parse(JSON.stringify(json), (key, value: unknown) => {
    if (key === 'traceId' || key === 'spanId' || key === 'parentSpanId') return typeof value === 'string' && value !== '' ? 'id' : value;
    if (/TimeUnixNano$/.test(key) || key === 'timeUnixNano') return 'time';
    if (typeof value === 'object' && value !== null && (value as { key?: unknown }).key === 'exception.stacktrace') return 'stacktrace';
    return value;
  });
}

function runBoth(env: Record<string, string>) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const sdk = collector();
    const sdkProvider = new BasicTracerProvider({ resource: sdkResource(RESOURCE), spanProcessors: [sdk.processor as unknown as SdkSpanProcessor] });
    const own = collector();
    const ownProvider = new AfterstopTracerProvider({ resource: resourceFromAttributes(RESOURCE), spanProcessors: [own.processor], env: process.env });
    const sdkSaid = said(() => scenario(sdkProvider.getTracer('afterstop', '0.1.0', { schemaUrl: 'https://example.com/schema' })));
    const ownSaid = said(() => scenario(ownProvider.getTracer('afterstop', '0.1.0', { schemaUrl: 'https://example.com/schema' })));
    return { sdk, own, sdkSaid, ownSaid };
  } finally {
    for (const key of Object.keys(env)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe("afterstop's tracer provider and the SDK's", () => {
  it('record the same spans for a run with a tool call, a cancel, nested spans, events, links, exceptions, every attribute type and limits exceeded', () => {
    const { sdk, own, sdkSaid, ownSaid } = runBoth({});
    expect(own.started).toEqual(sdk.started);
    expect(own.ended.map((s) => s.name)).toEqual(sdk.ended.map((s) => s.name));
    expect(own.ended.length).toBe(6);
    expect(normalise(own.ended, new Map())).toEqual(normalise(sdk.ended, new Map()));
    expect(otlp(own.ended)).toEqual(otlp(sdk.ended));
    expect(ownSaid).toEqual(sdkSaid);
    // What the comparison covers did happen: limits, invalid values, the exception events.
    const busy = own.ended.find((s) => s.name === 'busy')!;
    expect([busy.droppedAttributesCount, busy.droppedEventsCount, busy.droppedLinksCount]).toEqual([2, 2, 2]);
    expect(busy.events.at(-1)!.droppedAttributesCount).toBe(2);
    const tool = own.ended.find((s) => s.name.startsWith('execute_tool'))!;
    expect(tool.events.filter((e) => e.name === 'exception').map((e) => e.attributes!['exception.type'])).toEqual(['TypeError', undefined, '42']);
    expect(own.ended.find((s) => s.name === 'http POST')!.parentSpanContext!.spanId).toBe(tool.spanContext().spanId);
  });

  it('apply the same span limits from OTEL_SPAN_* and OTEL_ATTRIBUTE_* and the same sampler from OTEL_TRACES_SAMPLER', () => {
    for (const env of <Record<string, string>[]>[
      { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '3', OTEL_ATTRIBUTE_COUNT_LIMIT: '5' },
      { OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '2', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '9', OTEL_SPAN_EVENT_COUNT_LIMIT: '0', OTEL_SPAN_LINK_COUNT_LIMIT: '1' },
      { OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT: '1', OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT: '0', OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: 'many' },
      { OTEL_TRACES_SAMPLER: 'always_off' },
      { OTEL_TRACES_SAMPLER: 'parentbased_always_off' },
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
      { OTEL_TRACES_SAMPLER: 'no_such_sampler' },
    ]) {
      const { sdk, own, sdkSaid, ownSaid } = runBoth(env);
      expect(
        own.ended.map((s) => s.name),
        JSON.stringify(env),
      ).toEqual(sdk.ended.map((s) => s.name));
      expect(normalise(own.ended, new Map()), JSON.stringify(env)).toEqual(normalise(sdk.ended, new Map()));
      expect(ownSaid, JSON.stringify(env)).toEqual(sdkSaid);
    }
  });
});
