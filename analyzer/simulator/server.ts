/** The simulator HTTP server: dispatch to its routes (routes.ts), in-flight tracking and clean shutdown. */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nowNs } from './clock.js';
import { EffectService } from './effects.js';
import { sendJson } from './http-io.js';
import { Ledger } from './ledger.js';
import { ResponseStore } from './openai-responses.js';
import { IdGenerator } from './route-context.js';
import type { RouteContext } from './route-context.js';
import { findRoute } from './routes.js';

export interface SimulatorOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Per-token delay, default 25 ms (overridden per request by [[delay:MS]]). */
  tokenDelayMs?: number;
  /** Time to first token, default = the token delay (overridden per request by [[ttft:MS]]). */
  firstTokenDelayMs?: number;
}

export interface Simulator {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:PORT */
  url: string;
  ledger: Ledger;
  /** Resolves once no request handler is running (e.g. after a client aborted). */
  idle(): Promise<void>;
  /** Stops in-flight handlers, closes every connection; resolves when all is done. */
  close(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const host = opts.host ?? '127.0.0.1';
  const ledger = new Ledger();
  const ids = new IdGenerator();
  const services = { effects: new EffectService(), responses: new ResponseStore() };
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const timing = {
    ...(opts.tokenDelayMs !== undefined ? { tokenDelayMs: opts.tokenDelayMs } : {}),
    ...(opts.firstTokenDelayMs !== undefined ? { firstTokenDelayMs: opts.firstTokenDelayMs } : {}),
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const startNs = nowNs();
    const url = new URL(req.url ?? '/', 'http://simulator.local');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const ctx: RouteContext = { req, res, url, startNs, ledger, ids, timing, shutdown: shutdown.signal };
    if (shutdown.signal.aborted) return sendJson(res, 503, { error: { message: 'simulator closing' } }, { connection: 'close' });
    const found = findRoute(req.method ?? '', path);
    if (found) return found.route.handle(ctx, services, found.params);
    req.resume();
    sendJson(res, 404, { error: { message: `No route for ${req.method ?? '?'} ${url.pathname}`, type: 'not_found' } });
  };

  const server = createServer({ noDelay: true }, (req, res) => {
    const handler = route(req, res)
      .catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: `simulator error: ${String(err)}`, type: 'server_error' } });
        else res.destroy();
      })
      .finally(() => {
        inFlight.delete(handler);
      });
    inFlight.add(handler);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  const idle = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      shutdown.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await idle();
      server.closeAllConnections();
      await closed;
    })());

  return { url: `http://${urlHost}:${port}`, ledger, idle, close };
}
