import { safely } from '../adapter-api.js';

/** What to be told about a web stream as its reader reads it. */
export interface ReadableHooks<T> {
  chunk?(value: T): void;
  /** The source ended. */
  done?(): void;
  /** Reading the source failed. */
  error?(error: unknown): void;
  /** The reader cancelled the stream before its end. */
  cancel?(reason: unknown): void;
}

/**
 * The same stream, chunk for chunk, with hooks. It reads the source only
 * when its own reader asks (high-water mark 0), so timing and backpressure
 * are the source's; a cancel goes on to the source. The hooks never throw
 * into the stream.
 */
export function observeReadable<T>(source: ReadableStream<T>, hooks: ReadableHooks<T>): ReadableStream<T> {
  const reader = source.getReader();
  // After a cancel, a read still pending resolves as done: that is not the source's end.
  let cancelled = false;
  return new ReadableStream<T>(
    {
      async pull(controller) {
        let next: Awaited<ReturnType<ReadableStreamDefaultReader<T>['read']>>;
        try {
          next = await reader.read();
        } catch (error) {
          if (!cancelled) safely('stream error', () => hooks.error?.(error), undefined);
          controller.error(error);
          return;
        }
        if (next.done) {
          if (!cancelled) safely('stream end', () => hooks.done?.(), undefined);
          controller.close();
          return;
        }
        safely('stream chunk', () => hooks.chunk?.(next.value), undefined);
        controller.enqueue(next.value);
      },
      cancel(reason) {
        cancelled = true;
        safely('stream cancel', () => hooks.cancel?.(reason), undefined);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
