/** Span limits as sdk-trace-base 2.x sets them: 128 of each by default, values unbounded, from OTEL_SPAN_* then OTEL_ATTRIBUTE_*. */
import { numberFromEnv } from './sampler.js';

export interface SpanLimits {
  attributeCountLimit: number;
  attributeValueLengthLimit: number;
  eventCountLimit: number;
  linkCountLimit: number;
  attributePerEventCountLimit: number;
  attributePerLinkCountLimit: number;
}

const DEFAULT_COUNT = 128;

export function spanLimitsFromEnv(env: Record<string, string | undefined>): SpanLimits {
  const read = (key: string): number | undefined => numberFromEnv(env, key);
  return {
    attributeCountLimit: read('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ?? read('OTEL_ATTRIBUTE_COUNT_LIMIT') ?? DEFAULT_COUNT,
    attributeValueLengthLimit: read('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? read('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? Infinity,
    eventCountLimit: read('OTEL_SPAN_EVENT_COUNT_LIMIT') ?? DEFAULT_COUNT,
    linkCountLimit: read('OTEL_SPAN_LINK_COUNT_LIMIT') ?? DEFAULT_COUNT,
    attributePerEventCountLimit: read('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT') ?? DEFAULT_COUNT,
    attributePerLinkCountLimit: read('OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT') ?? DEFAULT_COUNT,
  };
}
