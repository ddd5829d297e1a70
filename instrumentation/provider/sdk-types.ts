/**
 * The shapes afterstop's processors, queue and exporters exchange with a tracer provider, written
 * structurally so that instrumentation/** needs no OpenTelemetry SDK package: the SDK 2.x types
 * (`ReadableSpan`, `SpanProcessor`, `SpanExporter`, `Resource` of sdk-trace-base and resources,
 * `ExportResult` of core) are assignable to these and back (test/instrumentation/provider/sdk-types.test.ts),
 * so the same code runs under afterstop's own provider (./tracer-provider.ts) and joined to the app's SDK.
 */
import type { ExportResult } from '../otel-compat.js';
import type { Attributes, AttributeValue, Context, HrTime, Link, Span, SpanContext, SpanKind, SpanStatus } from '@opentelemetry/api';

/** A resource attribute as the SDK keeps it before it is read: a value, or a promise of one (detected asynchronously). */
export type RawResourceAttribute = [string, AttributeValue | Promise<AttributeValue | undefined> | undefined];

/** The resource a span carries (resources 2.x `Resource`). */
export interface Resource {
  readonly asyncAttributesPending?: boolean;
  readonly attributes: Attributes;
  readonly schemaUrl?: string;
  waitForAsyncAttributes?(): Promise<void>;
  merge(other: Resource | null): Resource;
  getRawAttributes(): RawResourceAttribute[];
}

/** The tracer's name, version and schema URL (core 2.x `InstrumentationScope`). */
export interface InstrumentationScope {
  readonly name: string;
  readonly version?: string;
  readonly schemaUrl?: string;
}

/** An event on a span (sdk-trace-base 2.x `TimedEvent`). */
export interface TimedEvent {
  time: HrTime;
  name: string;
  attributes?: Attributes;
  droppedAttributesCount?: number;
}

/** An ended span as exporters read it (sdk-trace-base 2.x `ReadableSpan`). */
export interface ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly spanContext: () => SpanContext;
  readonly parentSpanContext?: SpanContext;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly links: Link[];
  readonly events: TimedEvent[];
  readonly duration: HrTime;
  readonly ended: boolean;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly droppedAttributesCount: number;
  readonly droppedEventsCount: number;
  readonly droppedLinksCount: number;
}

/** A span being recorded, as a processor's onStart sees it (sdk-trace-base 2.x `Span`). */
export type RecordingSpan = Span & ReadableSpan;

/** sdk-trace-base 2.x `SpanProcessor`. */
export interface SpanProcessor {
  forceFlush(): Promise<void>;
  onStart(span: RecordingSpan, parentContext: Context): void;
  onEnding?(span: RecordingSpan): void;
  onEnd(span: ReadableSpan): void;
  shutdown(): Promise<void>;
}

/** core 2.x `ExportResult` (its code one of core's `ExportResultCode` values, 0 success, 1 failed). */
export type { ExportResult } from '../otel-compat.js';

/** sdk-trace-base 2.x `SpanExporter`. */
export interface SpanExporter {
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}
