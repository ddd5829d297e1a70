import { randomFillSync } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type AttributeValue, type Context, type HrTime, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { hrTime, isTracingSuppressed, type InstrumentationScope } from './otel-compat.js';
import type { ReadableSpan, Resource, SpanProcessor } from './provider/sdk-types.js';

/**
 * Clock: every span afterstop writes (markers, runs, tools, model calls) takes
 * its start and end from `hrTime()` (the process's time origin plus the
 * monotonic `performance.now()`), so that the order of a marker and a span is
 * the order in which they happened. The SDK's default start time is
 * `Date.now()`, whole milliseconds, which would put a marker after a span that
 * started later within the same millisecond.
 *
 * Marker spans: a span that starts and ends at the same instant, so it enters
 * the export queue at once. A span is exported only when it ends; a marker
 * records a fact even if the process dies or the span it describes never ends.
 */
export interface MarkerWriter {
  /** `parentSpan` is `parent`'s span context, when the caller has it at hand; `time` defaults to now. */
  write(name: string, attributes: Attributes, parent: Context, parentSpan?: SpanContext, time?: HrTime): void;
}

/** Markers through the tracer, like any span: works with every tracer provider. */
export class TracerMarkerWriter implements MarkerWriter {
  constructor(private readonly tracer: Tracer) {}

  write(name: string, attributes: Attributes, parent: Context, _parentSpan?: SpanContext, time?: HrTime): void {
    const now = time ?? hrTime();
    const span = this.tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: now, attributes }, parent);
    span.end(now);
  }
}

// Span ids from a pool of random bytes: one system call per 512 ids.
const ID_POOL = Buffer.alloc(4096);
let idOffset = ID_POOL.length;
function spanId(): string {
  if (idOffset >= ID_POOL.length) {
    randomFillSync(ID_POOL);
    idOffset = 0;
  }
  const id = ID_POOL.toString('hex', idOffset, idOffset + 8);
  idOffset += 8;
  return id === '0000000000000000' ? spanId() : id;
}

const UNSET_STATUS = Object.freeze({ code: SpanStatusCode.UNSET });
const ZERO_DURATION: HrTime = [0, 0];
const NONE: never[] = [];

/**
 * An ended instant span, handed straight to the span processor. Only what
 * varies is stored on the instance; the constant fields are getters, so a
 * marker is a small object (markers are the most numerous spans).
 */
class MarkerSpan implements ReadableSpan {
  private readonly context: SpanContext;

  constructor(
    readonly name: string,
    readonly attributes: Attributes,
    readonly parentSpanContext: SpanContext,
    readonly startTime: HrTime,
    readonly resource: Resource,
    readonly instrumentationScope: InstrumentationScope,
  ) {
    this.context = { traceId: parentSpanContext.traceId, spanId: spanId(), traceFlags: TraceFlags.SAMPLED };
    if (parentSpanContext.traceState) this.context.traceState = parentSpanContext.traceState;
  }

  get endTime(): HrTime {
    return this.startTime;
  }
  get kind(): SpanKind {
    return SpanKind.INTERNAL;
  }
  get status(): { code: SpanStatusCode } {
    return UNSET_STATUS;
  }
  get links(): never[] {
    return NONE;
  }
  get events(): never[] {
    return NONE;
  }
  get duration(): HrTime {
    return ZERO_DURATION;
  }
  get ended(): boolean {
    return true;
  }
  get droppedAttributesCount(): number {
    return 0;
  }
  get droppedEventsCount(): number {
    return 0;
  }
  get droppedLinksCount(): number {
    return 0;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  // Span processors may enrich a span in onStart.
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
}

/**
 * Markers built directly as ended spans and given to the SDK's span
 * processor, skipping the work a long-lived span needs (sampler, limits,
 * mutable state): a marker costs a fraction of a span. It follows the
 * parent's sampling decision, as the SDK's default parent-based sampler would,
 * and takes the resource and scope of afterstop's own spans.
 */
export class DirectMarkerWriter implements MarkerWriter {
  constructor(
    private readonly processor: SpanProcessor,
    private readonly resource: Resource,
    private readonly scope: InstrumentationScope,
  ) {}

  write(name: string, attributes: Attributes, parent: Context, parentSpan?: SpanContext, time?: HrTime): void {
    const parentContext = parentSpan ?? trace.getSpanContext(parent);
    if (parentContext === undefined || (parentContext.traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (isTracingSuppressed(parent)) return;
    const marker = new MarkerSpan(name, attributes, parentContext, time ?? hrTime(), this.resource, this.scope);
    this.processor.onStart(marker as unknown as Parameters<SpanProcessor['onStart']>[0], parent);
    this.processor.onEnd(marker);
  }
}

/**
 * The fastest writer that is right for `span` (a span afterstop started):
 * direct when the pipeline gave a processor and the span is an SDK span
 * (it carries the resource and scope), through the tracer otherwise.
 */
export function markerWriterFor(span: Span, tracer: Tracer, processor: SpanProcessor | undefined): MarkerWriter {
  const sdkSpan = span as Partial<ReadableSpan>;
  if (processor !== undefined && sdkSpan.resource !== undefined && sdkSpan.instrumentationScope !== undefined) {
    return new DirectMarkerWriter(processor, sdkSpan.resource, sdkSpan.instrumentationScope);
  }
  return new TracerMarkerWriter(tracer);
}
