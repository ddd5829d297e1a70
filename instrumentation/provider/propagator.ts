/**
 * The propagator NodeTracerProvider.register() installs by default, written for afterstop's provider:
 * W3C trace context (`traceparent`, `tracestate`) then W3C baggage, as core 2.x's
 * W3CTraceContextPropagator, W3CBaggagePropagator and CompositePropagator do it
 * (test/instrumentation/provider/propagator.test.ts compares them).
 */
import {
  baggageEntryMetadataFromString,
  createTraceState,
  diag,
  isSpanContextValid,
  propagation,
  trace,
  TraceFlags,
  type BaggageEntry,
  type Context,
  type SpanContext,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '../otel-compat.js';

const TRACE_PARENT = 'traceparent';
const TRACE_STATE = 'tracestate';
const BAGGAGE = 'baggage';
const BAGGAGE_MAX_PAIRS = 180;
const BAGGAGE_MAX_PAIR_LENGTH = 4096;
const BAGGAGE_MAX_TOTAL_LENGTH = 8192;

const TRACE_PARENT_REGEX = /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;

/** A `traceparent` value's span context; null when malformed (version 00 takes nothing after the flags). */
export function parseTraceParent(value: string): SpanContext | null {
  const match = TRACE_PARENT_REGEX.exec(value);
  if (!match || (match[1] === '00' && match[5])) return null;
  return { traceId: match[2]!, spanId: match[3]!, traceFlags: Number.parseInt(match[4]!, 16) };
}

const traceContext: TextMapPropagator = {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const span = trace.getSpanContext(context);
    if (!span || isTracingSuppressed(context) || !isSpanContextValid(span)) return;
    setter.set(carrier, TRACE_PARENT, `00-${span.traceId}-${span.spanId}-0${Number(span.traceFlags || TraceFlags.NONE).toString(16)}`);
    if (span.traceState) setter.set(carrier, TRACE_STATE, span.traceState.serialize());
  },
  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const header = getter.get(carrier, TRACE_PARENT);
    if (!header) return context;
    const value = Array.isArray(header) ? header[0] : header;
    if (typeof value !== 'string') return context;
    const span = parseTraceParent(value);
    if (!span) return context;
    span.isRemote = true;
    const state = getter.get(carrier, TRACE_STATE);
    if (state) {
      const joined = Array.isArray(state) ? state.join(',') : state;
      span.traceState = createTraceState(typeof joined === 'string' ? joined : undefined);
    }
    return trace.setSpanContext(context, span);
  },
  fields: () => [TRACE_PARENT, TRACE_STATE],
};

function parsePair(entry: string): { key: string; entry: BaggageEntry } | undefined {
  if (!entry) return undefined;
  const metaAt = entry.indexOf(';');
  const pair = metaAt === -1 ? entry : entry.substring(0, metaAt);
  const eq = pair.indexOf('=');
  if (eq <= 0) return undefined;
  const rawKey = pair.substring(0, eq).trim();
  const rawValue = pair.substring(eq + 1).trim();
  if (!rawKey || !rawValue) return undefined;
  let key: string;
  let value: string;
  try {
    key = decodeURIComponent(rawKey);
    value = decodeURIComponent(rawValue);
  } catch {
    return undefined;
  }
  const metadata = metaAt !== -1 && metaAt < entry.length - 1 ? baggageEntryMetadataFromString(entry.substring(metaAt + 1)) : undefined;
  return { key, entry: metadata ? { value, metadata } : { value } };
}

/** Entries of one `baggage` header value added to `into`, within the W3C limits; the running count and size. */
function parseBaggageHeader(value: string, into: Record<string, BaggageEntry>, count: number, totalSize: number): [number, number] {
  let start = 0;
  while (start < value.length && count < BAGGAGE_MAX_PAIRS) {
    const end = value.indexOf(',', start);
    const entryEnd = end === -1 ? value.length : end;
    const length = entryEnd - start;
    if (length <= BAGGAGE_MAX_PAIR_LENGTH) {
      const pair = parsePair(value.substring(start, entryEnd));
      if (pair) {
        const size = (count === 0 ? 0 : 1) + length;
        if (totalSize + size > BAGGAGE_MAX_TOTAL_LENGTH) break;
        into[pair.key] = pair.entry;
        count++;
        totalSize += size;
      }
    }
    if (end === -1) break;
    start = end + 1;
  }
  return [count, totalSize];
}

const baggage: TextMapPropagator = {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const bag = propagation.getBaggage(context);
    if (!bag || isTracingSuppressed(context)) return;
    const pairs = bag
      .getAllEntries()
      .map(([key, entry]) => `${encodeURIComponent(key)}=${encodeURIComponent(entry.value)}${entry.metadata === undefined ? '' : `;${entry.metadata.toString()}`}`)
      .filter((pair) => pair.length <= BAGGAGE_MAX_PAIR_LENGTH)
      .slice(0, BAGGAGE_MAX_PAIRS);
    const header = pairs.reduce((out, pair) => {
      const next = `${out}${out !== '' ? ',' : ''}${pair}`;
      return next.length > BAGGAGE_MAX_TOTAL_LENGTH ? out : next;
    }, '');
    if (header.length > 0) setter.set(carrier, BAGGAGE, header);
  },
  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const header = getter.get(carrier, BAGGAGE);
    if (!header) return context;
    const entries: Record<string, BaggageEntry> = {};
    let count = 0;
    let totalSize = 0;
    for (const value of Array.isArray(header) ? header : [header]) [count, totalSize] = parseBaggageHeader(value, entries, count, totalSize);
    return count === 0 ? context : propagation.setBaggage(context, propagation.createBaggage(entries));
  },
  fields: () => [BAGGAGE],
};

/** Trace context then baggage, each one's failure said and passed over (core's CompositePropagator). */
export function w3cPropagator(): TextMapPropagator {
  const propagators = [traceContext, baggage];
  return {
    inject(context, carrier, setter) {
      for (const propagator of propagators) {
        try {
          propagator.inject(context, carrier, setter);
        } catch (error) {
          diag.warn(`Failed to inject with ${propagator === traceContext ? 'W3CTraceContextPropagator' : 'W3CBaggagePropagator'}. Err: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    },
    extract(context, carrier, getter) {
      return propagators.reduce((ctx, propagator) => {
        try {
          return propagator.extract(ctx, carrier, getter);
        } catch (error) {
          diag.warn(`Failed to extract with ${propagator === traceContext ? 'W3CTraceContextPropagator' : 'W3CBaggagePropagator'}. Err: ${error instanceof Error ? error.message : String(error)}`);
          return ctx;
        }
      }, context);
    },
    fields: () => [TRACE_PARENT, TRACE_STATE, BAGGAGE],
  };
}
