/**
 * afterstop's recording span: the OpenTelemetry API's `Span` with the semantics of sdk-trace-base 2.x's
 * SpanImpl (validation, limits, times, idempotent end, recordException's event), readable as the SDK's
 * `ReadableSpan` so that span processors and exporters written for the SDK take it unchanged.
 */
import {
  diag,
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
} from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { isAttributeValue, sanitizeAttributes } from './attributes.js';
import type { SpanLimits } from './limits.js';
import type { InstrumentationScope, ReadableSpan, Resource, SpanProcessor, TimedEvent } from './sdk-types.js';
import { addHrTimes, hrTime, hrTimeDuration, millisToHrTime } from '../otel-compat.js';
import { isHrTime, isTimeInput } from './time.js';

export interface SpanOptions {
  resource: Resource;
  scope: InstrumentationScope;
  context: Context;
  spanContext: SpanContext;
  name: string;
  kind: SpanKind;
  parentSpanContext: SpanContext | undefined;
  links: Link[];
  attributes: Attributes;
  startTime: TimeInput | undefined;
  spanProcessor: SpanProcessor;
  spanLimits: SpanLimits;
}

export class RecordingSpanImpl implements Span, ReadableSpan {
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly attributes: Attributes = {};
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  readonly startTime: HrTime;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  name: string;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  endTime: HrTime = [0, 0];

  private readonly context: SpanContext;
  private readonly processor: SpanProcessor;
  private readonly limits: SpanLimits;
  private readonly performanceStart: number;
  /** Date.now() minus performance time: a performance timestamp given as a time is corrected by it. */
  private readonly performanceOffset: number;
  private readonly startTimeGiven: boolean;
  private attributeCount = 0;
  private droppedAttributes = 0;
  private droppedEvents = 0;
  private droppedLinks = 0;
  private hasEnded = false;
  private spanDuration: HrTime = [-1, -1];

  constructor(options: SpanOptions) {
    const now = Date.now();
    this.context = options.spanContext;
    this.performanceStart = performance.now();
    this.performanceOffset = now - (this.performanceStart + performance.timeOrigin);
    this.startTimeGiven = options.startTime != null;
    this.limits = options.spanLimits;
    this.processor = options.spanProcessor;
    this.name = options.name;
    this.parentSpanContext = options.parentSpanContext;
    this.kind = options.kind;
    for (const link of options.links) this.addLink(link);
    this.startTime = this.toHrTime(options.startTime ?? now);
    this.resource = options.resource;
    this.instrumentationScope = options.scope;
    this.setAttributes(options.attributes);
    this.processor.onStart(this, options.context);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value?: AttributeValue): this {
    if (value == null || this.endedAlready()) return this;
    if (key.length === 0) {
      diag.warn(`Invalid attribute key: ${key}`);
      return this;
    }
    if (!isAttributeValue(value)) {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      return this;
    }
    const isNewKey = !Object.prototype.hasOwnProperty.call(this.attributes, key);
    if (this.attributeCount >= this.limits.attributeCountLimit && isNewKey) {
      this.droppedAttributes++;
      return this;
    }
    this.attributes[key] = this.truncate(value);
    if (isNewKey) this.attributeCount++;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (Object.prototype.hasOwnProperty.call(attributes, key)) this.setAttribute(key, attributes[key]);
    }
    return this;
  }

  addEvent(name: string, attributesOrStartTime?: Attributes | TimeInput, timeStamp?: TimeInput): this {
    if (this.endedAlready()) return this;
    const { eventCountLimit, attributePerEventCountLimit } = this.limits;
    if (eventCountLimit === 0) {
      diag.warn('No events allowed.');
      this.droppedEvents++;
      return this;
    }
    if (this.events.length >= eventCountLimit) {
      if (this.droppedEvents === 0) diag.debug('Dropping extra events.');
      this.events.shift();
      this.droppedEvents++;
    }
    if (isTimeInput(attributesOrStartTime)) {
      if (!isTimeInput(timeStamp)) timeStamp = attributesOrStartTime;
      attributesOrStartTime = undefined;
    }
    const { kept, dropped } = this.limited(sanitizeAttributes(attributesOrStartTime), attributePerEventCountLimit);
    this.events.push({ name, attributes: kept, time: this.toHrTime(timeStamp), droppedAttributesCount: dropped });
    return this;
  }

  addLink(link: Link): this {
    if (this.endedAlready()) return this;
    const { linkCountLimit, attributePerLinkCountLimit } = this.limits;
    if (linkCountLimit === 0) {
      this.droppedLinks++;
      return this;
    }
    if (this.links.length >= linkCountLimit) {
      if (this.droppedLinks === 0) diag.debug('Dropping extra links.');
      this.links.shift();
      this.droppedLinks++;
    }
    const { kept, dropped, count } = this.limited(sanitizeAttributes(link.attributes), attributePerLinkCountLimit);
    const processed: Link = { context: link.context };
    if (count > 0) processed.attributes = kept;
    if (dropped > 0) processed.droppedAttributesCount = dropped;
    this.links.push(processed);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.endedAlready()) return this;
    if (status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    const next: SpanStatus = { code: status.code };
    if (status.code === SpanStatusCode.ERROR) {
      if (typeof status.message === 'string') next.message = status.message;
      else if (status.message != null) diag.warn(`Dropping invalid status.message of type '${typeof status.message}', expected 'string'`);
    }
    this.status = next;
    return this;
  }

  updateName(name: string): this {
    if (this.endedAlready()) return this;
    this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.endedAlready()) {
      diag.error(`${this.name} ${this.context.traceId}-${this.context.spanId} - You can only call end() on a span once.`);
      return;
    }
    this.endTime = this.toHrTime(endTime);
    this.spanDuration = hrTimeDuration(this.startTime, this.endTime);
    if (this.spanDuration[0] < 0) {
      diag.warn('Inconsistent start and end time, startTime > endTime. Setting span duration to 0ms.', this.startTime, this.endTime);
      this.endTime = this.startTime.slice() as HrTime;
      this.spanDuration = [0, 0];
    }
    if (this.droppedEvents > 0) diag.warn(`Dropped ${this.droppedEvents} events because eventCountLimit reached`);
    if (this.droppedLinks > 0) diag.warn(`Dropped ${this.droppedLinks} links because linkCountLimit reached`);
    this.processor.onEnding?.(this);
    this.hasEnded = true;
    this.processor.onEnd(this);
  }

  isRecording(): boolean {
    return !this.hasEnded;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') {
      attributes['exception.message'] = exception;
    } else if (exception) {
      if (exception.code) attributes['exception.type'] = exception.code.toString();
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
    else diag.warn(`Failed to record an exception ${String(exception)}`);
  }

  get duration(): HrTime {
    return this.spanDuration;
  }
  get ended(): boolean {
    return this.hasEnded;
  }
  get droppedAttributesCount(): number {
    return this.droppedAttributes;
  }
  get droppedEventsCount(): number {
    return this.droppedEvents;
  }
  get droppedLinksCount(): number {
    return this.droppedLinks;
  }

  private endedAlready(): boolean {
    if (this.hasEnded) {
      const where = `{traceId: ${this.context.traceId}, spanId: ${this.context.spanId}}`;
      diag.warn(`Cannot execute the operation on ended Span ${where}`, new Error(`Operation attempted on ended Span ${where}`));
    }
    return this.hasEnded;
  }

  /** The first `limit` of `attributes`, truncated; how many were dropped. */
  private limited(attributes: Attributes, limit: number): { kept: Attributes; dropped: number; count: number } {
    const kept: Attributes = {};
    let dropped = 0;
    let count = 0;
    for (const key in attributes) {
      if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
      if (count >= limit) {
        dropped++;
        continue;
      }
      kept[key] = this.truncate(attributes[key] as AttributeValue);
      count++;
    }
    return { kept, dropped, count };
  }

  /** Strings (and strings in arrays) cut to the value length limit. */
  private truncate(value: AttributeValue): AttributeValue {
    const limit = this.limits.attributeValueLengthLimit;
    if (limit <= 0) {
      diag.warn(`Attribute value limit must be positive, got ${limit}`);
      return value;
    }
    if (typeof value === 'string') return value.length <= limit ? value : value.substring(0, limit);
    if (Array.isArray(value)) {
      return (value as unknown[]).map((item) => (typeof item === 'string' && item.length > limit ? item.substring(0, limit) : item)) as AttributeValue;
    }
    return value;
  }

  /** A time input as the SDK converts it: a performance timestamp, epoch milliseconds, a Date, an HrTime; none: now. */
  private toHrTime(input: TimeInput | undefined): HrTime {
    if (typeof input === 'number' && input <= performance.now()) return hrTime(input + this.performanceOffset);
    if (typeof input === 'number') return millisToHrTime(input);
    if (input instanceof Date) return millisToHrTime(input.getTime());
    if (isHrTime(input)) return input;
    // A start time given by the caller: durations measured from it would be wrong, so the clock is read.
    if (this.startTimeGiven) return millisToHrTime(Date.now());
    return addHrTimes(this.startTime, millisToHrTime(performance.now() - this.performanceStart));
  }
}
