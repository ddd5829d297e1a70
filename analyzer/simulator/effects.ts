/**
 * POST /effects/:name — a side-effecting service (payment, e-mail, deploy...). It waits, then commits,
 * even if the client has disconnected meanwhile (the real-world ghost effect). How each request is
 * shaped: EFFECT_PARAMETERS below. A repeated `Idempotency-Key` that already committed is deduplicated
 * and answered with the original effect_id; a request whose key another request still holds waits for
 * it, or is refused (conflictInProgress).
 */
import { nowNs } from './clock.js';
import { ClientConnection, readJsonBody, sendJson, sleep } from './http-io.js';
import type { EffectRecord } from './ledger.js';
import type { RouteContext } from './route-context.js';

export const DEFAULT_EFFECT_DELAY_MS = 100;

/** One way to shape an effect request: a query parameter or a header. */
export interface EffectParameter {
  name: string;
  in: 'query' | 'header';
  syntax: string;
  summary: string;
}

/** Everything POST /effects/:name reads besides its JSON body (recorded nowhere but in its outcome). */
export const EFFECT_PARAMETERS = [
  { name: 'delayMs', in: 'query', syntax: 'delayMs=MS', summary: `how long the service works before it commits (default ${DEFAULT_EFFECT_DELAY_MS})` },
  { name: 'replyDelayMs', in: 'query', syntax: 'replyDelayMs=MS', summary: 'holds the answer back after the commit (default 0): the effect is real, its receipt not yet sent' },
  {
    name: 'abandonOnDisconnect',
    in: 'query',
    syntax: 'abandonOnDisconnect=1',
    summary: 'a service that notices its client left: a disconnect before the commit abandons the effect (default: it commits anyway)',
  },
  {
    name: 'conflictInProgress',
    in: 'query',
    syntax: 'conflictInProgress=1',
    summary: 'a request whose Idempotency-Key another request still holds is answered 409 at once and recorded as conflict (default: it waits for it)',
  },
  {
    name: 'idempotency-key',
    in: 'header',
    syntax: 'Idempotency-Key: KEY',
    summary: 'a key already committed is not done again: answered with the original effect_id, recorded as deduplicated',
  },
] as const satisfies readonly EffectParameter[];

type EffectQuery = Extract<(typeof EFFECT_PARAMETERS)[number], { in: 'query' }>['name'];
type EffectHeader = Extract<(typeof EFFECT_PARAMETERS)[number], { in: 'header' }>['name'];

function errorBody(message: string): { error: { message: string; type: string } } {
  return { error: { message, type: 'invalid_request_error' } };
}

export class EffectService {
  /** Idempotency-Key -> effect_id of the committed effect. */
  private readonly committedByKey = new Map<string, string>();
  /** Idempotency-Key -> settles when the request currently holding that key finishes. */
  private readonly inFlightByKey = new Map<string, Promise<void>>();

  async handle(ctx: RouteContext, name: string): Promise<void> {
    const { req, res, url, ledger } = ctx;
    const query = (name: EffectQuery): string | null => url.searchParams.get(name);
    const header = (name: EffectHeader): string | undefined => {
      const raw = req.headers[name];
      return Array.isArray(raw) ? raw[0] : raw;
    };
    const delayParam = query('delayMs');
    const delayMs = delayParam === null ? DEFAULT_EFFECT_DELAY_MS : Number(delayParam);
    if (!Number.isFinite(delayMs) || delayMs < 0) {
      return sendJson(res, 400, errorBody(`delayMs must be a non-negative number, got ${delayParam}`));
    }
    const abandonOnDisconnect = ['1', 'true'].includes(query('abandonOnDisconnect') ?? '');
    const conflictInProgress = ['1', 'true'].includes(query('conflictInProgress') ?? '');
    const replyDelayMs = Number(query('replyDelayMs') ?? 0);
    if (!Number.isFinite(replyDelayMs) || replyDelayMs < 0) {
      return sendJson(res, 400, errorBody(`replyDelayMs must be a non-negative number, got ${query('replyDelayMs')}`));
    }
    const key = header('idempotency-key') || null;

    const body = await readJsonBody(req, ctx.shutdown);
    if (!body.ok) {
      if (body.status !== 499) sendJson(res, body.status, errorBody(body.message));
      return; // 499: the client left before its request was complete; nothing was received
    }
    const conn = new ClientConnection(res);
    const record = (r: Omit<EffectRecord, 'name' | 'idempotencyKey' | 'receivedNs'>): void => ledger.addEffect({ name, idempotencyKey: key, receivedNs: ctx.startNs, ...r });

    let release: (() => void) | undefined;
    if (key !== null) {
      if (conflictInProgress && this.inFlightByKey.has(key)) {
        record({ id: ctx.ids.next('eff_'), committedNs: null, outcome: 'conflict', clientClosedBeforeCommit: false });
        return sendJson(res, 409, { error: { message: 'A request with this Idempotency-Key is in progress', type: 'idempotency_error' } });
      }
      for (let pending = this.inFlightByKey.get(key); pending; pending = this.inFlightByKey.get(key)) await pending;
      const original = this.committedByKey.get(key);
      if (original !== undefined) {
        record({ id: original, committedNs: null, outcome: 'deduplicated', clientClosedBeforeCommit: false });
        return sendJson(res, 200, { effect_id: original, name, committed: true, deduplicated: true });
      }
      this.inFlightByKey.set(key, new Promise<void>((resolve) => (release = resolve)));
    }

    try {
      const id = ctx.ids.next('eff_');
      if (ctx.shutdown.aborted) {
        record({ id, committedNs: null, outcome: 'abandoned', clientClosedBeforeCommit: conn.closed });
        return sendJson(res, 503, errorBody('simulator closed'));
      }
      const stop = new AbortController();
      const onShutdown = (): void => stop.abort();
      ctx.shutdown.addEventListener('abort', onShutdown, { once: true });
      const offClose = abandonOnDisconnect ? conn.onClose(() => stop.abort()) : () => {};
      const done = await sleep(delayMs, stop.signal);
      ctx.shutdown.removeEventListener('abort', onShutdown);
      offClose();

      if (!done) {
        record({ id, committedNs: null, outcome: 'abandoned', clientClosedBeforeCommit: conn.closed });
        if (!conn.closed) sendJson(res, 503, errorBody('simulator closed'));
        return;
      }
      const committedNs = nowNs();
      if (key !== null) this.committedByKey.set(key, id);
      record({ id, committedNs, outcome: 'committed', clientClosedBeforeCommit: conn.closed });
      if (replyDelayMs > 0) await sleep(replyDelayMs, ctx.shutdown);
      if (!conn.closed) sendJson(res, 200, { effect_id: id, name, committed: true, deduplicated: false });
    } finally {
      if (key !== null) {
        this.inFlightByKey.delete(key);
        release?.();
      }
    }
  }
}
