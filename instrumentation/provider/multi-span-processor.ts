/**
 * The provider's span processors as one, as sdk-trace-base 2.x's MultiSpanProcessor: its `_spanProcessors`
 * list is the shape pipeline.ts's attachProcessor appends to when it joins a registered provider, ours included.
 */
import { diag, type Context } from '@opentelemetry/api';
import type { ReadableSpan, RecordingSpan, SpanProcessor } from './sdk-types.js';

export class MultiSpanProcessor implements SpanProcessor {
  constructor(readonly _spanProcessors: SpanProcessor[]) {}

  forceFlush(): Promise<void> {
    return Promise.all(this._spanProcessors.map((processor) => processor.forceFlush())).then(
      () => {},
      (error: unknown) => diag.error(String(error ?? new Error('MultiSpanProcessor: forceFlush failed'))),
    );
  }

  onStart(span: RecordingSpan, context: Context): void {
    for (const processor of this._spanProcessors) processor.onStart(span, context);
  }

  onEnding(span: RecordingSpan): void {
    for (const processor of this._spanProcessors) processor.onEnding?.(span);
  }

  onEnd(span: ReadableSpan): void {
    for (const processor of this._spanProcessors) processor.onEnd(span);
  }

  shutdown(): Promise<void> {
    return Promise.all(this._spanProcessors.map((processor) => processor.shutdown())).then(() => {});
  }
}
