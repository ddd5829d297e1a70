import { commandWord, outsideTool, safely } from '../adapter-api.js';

/**
 * An MCP client's transport, observed: its `send` (the instance's, wrapped once, the first time one of the
 * client's requests is made) tells when a `tools/call` request was written (a stdio pipe write, an HTTP POST
 * body handed to fetch) and when a `notifications/cancelled` for it was; where the transport is given a signal
 * for the request's own HTTP stream (`@ai-sdk/mcp`'s HTTP transports, the v2 client's per-request streams), the
 * abort of that signal closes the stream: the 2026-07-28 revision's cancel. What the transport sends runs
 * outside the tool's context: the MCP client's own HTTP requests are not the tool body's commits (the MCP
 * instrumentation measures them) and the fence does not hold them (its cancel must go out).
 */
export type CancelVia = 'notification' | 'stream_closed';

/** What the transport tells the `tools/call` it carries (mcp-client.ts). */
export interface CarriedCall {
  /** The request was handed to the transport, with this JSON-RPC id; `stream` aborts when its HTTP stream is closed. */
  sent(id: unknown, stream: AbortSignal | undefined): void;
  /** The transport failed to send it (nothing reached the server). */
  notSent(): void;
  /** Its cancel crossed to the server, `guard`: the guard sent it. */
  cancelCrossed(via: CancelVia, guard: boolean): void;
}

/** How a transport reaches its server: `pipe` (stdio) or `tcp` (HTTP), the server's name as the transport knows it. */
export interface TransportFacts {
  network: 'pipe' | 'tcp' | undefined;
  /** The first word of the command (its basename, never the arguments), or the URL's host. */
  server: string | undefined;
  address: string | undefined;
  port: number | undefined;
}

interface State {
  /** Its `tools/call` requests in flight, by JSON-RPC id (as a string). */
  readonly calls: Map<string, CarriedCall>;
  readonly http: boolean;
}

/** At most this many requests in flight tracked per transport (past it, a request's cancel is not matched). */
const MAX_TRACKED = 1024;

const states = new WeakMap<object, State>();
/** The `tools/call` whose request is being made now: the transport's next `tools/call` is its (clients send synchronously from `request`). */
let claiming: CarriedCall | undefined;
/** The guard is writing a `notifications/cancelled` now. */
let guardSending = false;
/** The instrumentation is on: off, the wrapped sends only pass through. */
let observing = true;

export function observeTransports(on: boolean): void {
  observing = on;
}

type Json = Record<string, unknown>;
type Send = (this: unknown, message: unknown, options?: unknown) => unknown;

const urlOf = (transport: Json): URL | undefined => {
  const raw = transport['_url'] ?? transport['url'];
  if (raw instanceof URL) return raw;
  if (typeof raw !== 'string') return undefined;
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
};

const commandOf = (transport: Json): unknown => ((transport['_serverParams'] ?? transport['serverParams']) as Json | undefined)?.['command'];

export function transportFacts(transport: unknown): TransportFacts {
  if (transport === null || typeof transport !== 'object') return { network: undefined, server: undefined, address: undefined, port: undefined };
  const t = transport as Json;
  const url = urlOf(t);
  if (url !== undefined) {
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : undefined;
    return { network: 'tcp', server: url.host, address: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
  }
  const command = commandOf(t);
  return { network: command !== undefined ? 'pipe' : undefined, server: commandWord(command), address: undefined, port: undefined };
}

/** The transport's MCP session id, when it has one (Streamable HTTP). */
export function sessionIdOf(transport: unknown): string | undefined {
  const id = transport !== null && typeof transport === 'object' ? (transport as Json)['sessionId'] : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

const signalIn = (options: unknown): AbortSignal | undefined => {
  if (options === null || typeof options !== 'object') return undefined;
  const o = options as Json;
  const s = o['signal'] ?? o['requestSignal'];
  return s instanceof AbortSignal ? s : undefined;
};

function onSend(state: State, message: unknown, options: unknown): CarriedCall | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  const m = message as Json;
  if (m['method'] === 'tools/call' && 'id' in m && claiming !== undefined) {
    const call = claiming;
    claiming = undefined;
    const key = String(m['id']);
    if (state.calls.size < MAX_TRACKED) state.calls.set(key, call);
    call.sent(m['id'], state.http ? signalIn(options) : undefined);
    return call;
  }
  if (m['method'] === 'notifications/cancelled') {
    const id = (m['params'] as Json | undefined)?.['requestId'];
    state.calls.get(String(id))?.cancelCrossed('notification', guardSending);
  }
  return undefined;
}

/** Watch `transport`'s sends (once per transport). Never throws. */
export function observeTransport(transport: unknown): void {
  safely(
    'mcp transport',
    () => {
      if (transport === null || typeof transport !== 'object' || states.has(transport)) return;
      const t = transport as Json;
      const original = t['send'];
      if (typeof original !== 'function') return;
      const state: State = { calls: new Map(), http: urlOf(t) !== undefined };
      states.set(transport, state);
      t['send'] = function observedSend(this: unknown, ...args: unknown[]): unknown {
        if (!observing) return Reflect.apply(original as Send, this, args);
        const call = safely('mcp send', () => onSend(state, args[0], args[1]), undefined);
        const sent = outsideTool(() => Reflect.apply(original as Send, this, args));
        // A send that fails (the pipe closed, the POST refused before the server had it) sent nothing; an abort
        // of the request's stream is not such a failure (the server may have it).
        if (call !== undefined && sent instanceof Promise) sent.catch((error: unknown) => safely('mcp send failed', () => (error as { name?: unknown })?.name === 'AbortError' || call.notSent(), undefined));
        return sent;
      };
    },
    undefined,
  );
}

/** Forget a settled request of `transport`. */
export function forgetRequest(transport: unknown, id: unknown): void {
  if (transport !== null && typeof transport === 'object') states.get(transport)?.calls.delete(String(id));
}

/** Make `fn`'s synchronous send of a `tools/call` `call`'s. */
export function claimingSend<T>(call: CarriedCall, fn: () => T): T {
  const previous = claiming;
  claiming = call;
  try {
    return fn();
  } finally {
    claiming = previous;
  }
}

/** The guard's `notifications/cancelled` for request `id`, through the client's own transport (observed as any). */
export function sendCancelled(transport: unknown, id: unknown, reason: string): void {
  if (transport === null || typeof transport !== 'object') return;
  const send = (transport as Json)['send'];
  if (typeof send !== 'function') return;
  guardSending = true;
  try {
    const p = Reflect.apply(send as Send, transport, [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }]);
    if (p instanceof Promise) p.catch(() => {});
  } finally {
    guardSending = false;
  }
}
