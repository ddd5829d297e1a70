/** afterstop's tracer: starts spans as sdk-trace-base 2.x's Tracer does (parent from the context, sampling, suppression). */
import {
  context as contextApi,
  diag,
  INVALID_SPAN_CONTEXT,
  SamplingDecision,
  SpanKind,
  trace,
  TraceFlags,
  type Context,
  type Sampler,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '../otel-compat.js';
import { sanitizeAttributes } from './attributes.js';
import { newSpanId, newTraceId } from './ids.js';
import type { SpanLimits } from './limits.js';
import type { InstrumentationScope, Resource, SpanProcessor } from './sdk-types.js';
import { RecordingSpanImpl } from './span.js';
import { isValidParent } from './valid-parent.js';

export interface TracerOptions {
  resource: Resource;
  sampler: Sampler;
  spanLimits: SpanLimits;
  spanProcessor: SpanProcessor;
}

export class AfterstopTracer implements Tracer {
  constructor(
    readonly instrumentationScope: InstrumentationScope,
    private readonly options: TracerOptions,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, context: Context = contextApi.active()): Span {
    if (options.root) context = trace.deleteSpan(context);
    if (isTracingSuppressed(context)) {
      diag.debug('Instrumentation suppressed, returning Noop Span');
      return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    }
    const parentSpanContext = trace.getSpan(context)?.spanContext();
    const spanId = newSpanId();
    let validParent: SpanContext | undefined;
    let traceId: string;
    let traceState;
    if (!parentSpanContext || !isValidParent(parentSpanContext)) {
      traceId = newTraceId();
    } else {
      traceId = parentSpanContext.traceId;
      traceState = parentSpanContext.traceState;
      validParent = parentSpanContext;
    }
    const kind = options.kind ?? SpanKind.INTERNAL;
    const links = (options.links ?? []).map((link) => ({ context: link.context, attributes: sanitizeAttributes(link.attributes) }));
    const attributes = sanitizeAttributes(options.attributes);
    const sampling = this.options.sampler.shouldSample(context, traceId, name, kind, attributes, links);
    traceState = sampling.traceState ?? traceState;
    const traceFlags = sampling.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
    const spanContext: SpanContext = { traceId, spanId, traceFlags, traceState };
    if (sampling.decision === SamplingDecision.NOT_RECORD) {
      diag.debug('Recording is off, propagating context in a non-recording span');
      return trace.wrapSpanContext(spanContext);
    }
    return new RecordingSpanImpl({
      resource: this.options.resource,
      scope: this.instrumentationScope,
      context,
      spanContext,
      name,
      kind,
      links,
      parentSpanContext: validParent,
      attributes: sanitizeAttributes(Object.assign(attributes, sampling.attributes)),
      startTime: options.startTime,
      spanProcessor: this.options.spanProcessor,
      spanLimits: this.options.spanLimits,
    });
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, context: Context, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> | undefined {
    if (rest.length < 1) return undefined;
    // As the SDK reads its arguments: (fn), (options, fn), (options, context, fn).
    const fn = rest[Math.min(rest.length, 3) - 1] as F;
    const options = rest.length >= 2 ? (rest[0] as SpanOptions | undefined) : undefined;
    const parent = (rest.length >= 3 ? (rest[1] as Context | undefined) : undefined) ?? contextApi.active();
    const span = this.startSpan(name, options, parent);
    return contextApi.with(trace.setSpan(parent, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}
