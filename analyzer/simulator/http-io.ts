/** Small node:http helpers shared by the simulator routes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nowNs } from './clock.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: number; message: string };

/** Reads and parses a JSON body. An empty body parses as `null`. */
export function readJsonBody(req: IncomingMessage, signal?: AbortSignal): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onAbort = (): void => settle({ ok: false, status: 503, message: 'simulator closed' });
    const settle = (r: BodyResult): void => {
      if (!settled) {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      }
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        settle({ ok: false, status: 413, message: 'request body too large' });
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return settle({ ok: true, value: null });
      try {
        settle({ ok: true, value: JSON.parse(text) as unknown });
      } catch (err) {
        settle({ ok: false, status: 400, message: `malformed JSON body: ${(err as Error).message}` });
      }
    });
    req.on('error', () => settle({ ok: false, status: 499, message: 'client closed while sending the body' }));
    req.on('close', () => settle({ ok: false, status: 499, message: 'client closed while sending the body' }));
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function startEventStream(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  res.flushHeaders();
}

/** Tracks whether the client went away before the response was fully written. */
export class ClientConnection {
  private closedAt: bigint | null = null;
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly res: ServerResponse) {
    res.once('close', () => {
      if (!res.writableFinished) {
        this.closedAt = nowNs();
        for (const l of this.listeners.splice(0)) l();
      }
    });
  }

  /** True once the client disconnected before the response finished. */
  get closed(): boolean {
    return this.closedAt !== null || (this.res.destroyed && !this.res.writableFinished);
  }

  get closedNs(): bigint | null {
    return this.closedAt;
  }

  /** Calls `fn` when the client disconnects early (immediately if it already has). */
  onClose(fn: () => void): () => void {
    if (this.closed) {
      fn();
      return () => {};
    }
    this.listeners.push(fn);
    return () => {
      const i = this.listeners.indexOf(fn);
      if (i !== -1) this.listeners.splice(i, 1);
    };
  }

  /** Writes if the client is still there; returns whether it was written. */
  write(chunk: string): boolean {
    if (this.closed) return false;
    this.res.write(chunk);
    return true;
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. Never leaks its timer. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
