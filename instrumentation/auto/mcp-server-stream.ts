import { context, createContextKey, type Context } from '@opentelemetry/api';

/**
 * The HTTP response stream a Streamable HTTP request is answered on, carried in the context of the
 * transport's `handleRequest` to the handlers of the JSON-RPC requests that POST carried. The SDK's
 * transport (1.x `StreamableHTTPServerTransport`) does not tell a handler that the client closed the
 * stream (it only forgets the stream): this does, when the response closes before it was ended.
 */
export class ResponseStream {
  private readonly listeners = new Set<() => void>();
  private closedEarly = false;

  constructor(response: unknown) {
    const res = response as { once?: (event: string, fn: () => void) => unknown; writableEnded?: unknown };
    if (typeof res?.once !== 'function') return;
    res.once('close', () => {
      // Closed before the server ended it: the client went away (aborted the fetch, closed the connection).
      if (res.writableEnded === true) return;
      this.closedEarly = true;
      for (const fn of [...this.listeners]) fn();
      this.listeners.clear();
    });
  }

  /** Call `fn` when the client closes the stream (at once if it has); returns the unsubscription. */
  onClosed(fn: () => void): () => void {
    if (this.closedEarly) {
      fn();
      return () => {};
    }
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

const STREAM_KEY = createContextKey('afterstop.mcp.response-stream');

export const contextWithStream = (ctx: Context, stream: ResponseStream): Context => ctx.setValue(STREAM_KEY, stream);

/** The response stream of the Streamable HTTP request whose handler is running, if any. */
export const activeStream = (): ResponseStream | undefined => context.active().getValue(STREAM_KEY) as ResponseStream | undefined;
