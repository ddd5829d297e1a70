/** `isSpanContextValid` for a parent span context, remembering the last one found valid. */
import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';

/**
 * The parent span context last found valid, and the ids it had then: a run's calls share their parent, and
 * checking its ids again (two regular expressions, in the tracer and again in the parent-based sampler) was
 * 6 % of a tool call. Its ids are compared, not only the object: a span context changed since is checked again.
 */
let lastValid: SpanContext | undefined;
let lastTraceId = '';
let lastSpanId = '';

/** The API's `isSpanContextValid(parent)`: the same answer for every span context. */
export function isValidParent(parent: SpanContext): boolean {
  if (parent === lastValid && parent.traceId === lastTraceId && parent.spanId === lastSpanId) return true;
  if (!isSpanContextValid(parent)) return false;
  lastValid = parent;
  lastTraceId = parent.traceId;
  lastSpanId = parent.spanId;
  return true;
}
