import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';

/** W3C `traceparent` for a span context: version 00, trace id, parent (span) id, flags. */
export function traceparentOf(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * An MCP request's `params` carrying W3C trace context in `_meta` (`traceparent`, and `tracestate` when it is
 * not empty: the keys the 2026-07-28 revision reserves for OpenTelemetry), the tool span as the parent: a copy,
 * never the caller's object changed. Left as they are: params that are not an object, a `_meta` that is not one,
 * a `traceparent` the app set itself, a span context that is not valid.
 */
export function withTraceContext(params: unknown, sc: SpanContext | undefined): unknown {
  if (sc === undefined || !isSpanContextValid(sc)) return params;
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) return params;
  const p = (params ?? {}) as Record<string, unknown>;
  const meta = p['_meta'];
  if (meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta))) return params;
  const m = (meta ?? {}) as Record<string, unknown>;
  if (m['traceparent'] !== undefined) return params;
  const copy: Record<string, unknown> = { ...m, traceparent: traceparentOf(sc) };
  const state = sc.traceState?.serialize();
  if (state !== undefined && state !== '') copy['tracestate'] = state;
  return { ...p, _meta: copy };
}
