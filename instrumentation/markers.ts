import { SpanKind, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';

/**
 * Write a marker span: it starts and ends at the same instant, so it enters
 * the export queue at once. A span is exported only when it ends; a marker
 * records a fact even if the process dies or the span it describes never ends.
 */
export function emitMarker(tracer: Tracer, name: string, attributes: Attributes, parent: Context): void {
  const now = hrTime();
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: now, attributes }, parent);
  span.end(now);
}
