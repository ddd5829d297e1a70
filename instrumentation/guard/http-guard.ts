import * as dc from 'node:diagnostics_channel';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { ClientRequest } from 'node:http';
import { ATTR_GUARD_FENCE_PASSED, ATTR_HTTP_REQUEST_METHOD, ATTR_SERVER_ADDRESS } from '../semconv.js';
import { CommitFencedError } from '../errors.js';
import { guardChannels, guardKey, keyedHttpRequests, SAFE_METHODS } from '../commit-detection.js';
import { activeTool, type CommitSink } from '../run-context.js';
import { reportInternalError, safely } from '../safe.js';
import { guard, type ResolvedGuard } from './config.js';
import { fenceHolds, fencePassage, noteWork } from './fence-passage.js';

/**
 * The guard's HTTP part: the commit fence, and idempotency keys on node:http.
 *
 * A tool's mutating request made once its run was stopped never leaves: the
 * fence wraps `fetch` and `request`/`get` of `node:http` and `node:https`, and
 * reads a ClientRequest made otherwise where Node announces it
 * (`http.client.request.created`); each refuses it before anything is sent (a
 * fetch rejects, the rejection marked handled; a ClientRequest is destroyed
 * before it has a socket, and emits the error only to a listener). What carries
 * the Stop or cleans up passes (fence-passage.ts), recorded. The request is
 * judged when it is made, for what it really does (its method as the client
 * reads it; through a proxy, the host its target names): one made before the
 * Stop is left alone, whatever it is sending (cutting it would make its outcome
 * unknown), and counted as the commit detector counts it.
 *
 * Keys: a fetch (and undici) request is keyed where it is made, on the
 * diagnostics channel (commit-detection.ts); a node:http request here, when
 * it is made, before its headers can have gone.
 *
 * What the fence cannot tell apart: work a tool body starts and leaves running
 * (a timer, a client made lazily inside it) keeps the body's context, so its
 * mutating requests after the Stop are held too; `fence.hosts` limits the
 * fence to the services that take side effects. A refused node:http request
 * may already have opened its connection (the agent connects as the request is
 * made); no byte of the request is written on it.
 *
 * The wrappers are declarative (the targets below), installed while the fence
 * or the keys are on and removed when both are off; each falls back to the
 * original call when its own work fails. Named imports of the built-ins
 * (`import { request } from 'node:http'`) follow through
 * `syncBuiltinESMExports`; a `request` an app took before afterstop was set
 * up is caught on the channel; a `fetch` it took keeps the original.
 */
type Fn = (this: unknown, ...args: unknown[]) => unknown;

const require = createRequire(import.meta.url);
const WRAPPED = Symbol.for('afterstop.guard.wrapped');

/** The fence's answer for a request `tool` makes now: the error that refuses it (the marker written), or undefined (a passage after the Stop recorded). */
export function fenceRefusal(tool: CommitSink, method: string, host: string | undefined, path: string): CommitFencedError | undefined {
  if (SAFE_METHODS.has(method) || !fenceHolds(tool, host)) return undefined;
  if (!tool.runStopped()) {
    noteWork(tool, host);
    return undefined;
  }
  const attributes: Record<string, string> = { [ATTR_HTTP_REQUEST_METHOD]: method };
  if (host !== undefined) attributes[ATTR_SERVER_ADDRESS] = host;
  const passage = fencePassage(tool, method, host, path);
  if (passage !== undefined) {
    attributes[ATTR_GUARD_FENCE_PASSED] = passage;
    tool.fencePassed(attributes);
    return undefined;
  }
  tool.commitPrevented(attributes);
  return new CommitFencedError(method, host, tool.runAbortReason());
}

/**
 * A request method as the client reads it: a `String` object or anything else given is its text (fetch
 * reads `init.method` as a ByteString: `new String('POST')` sends a POST), none is GET.
 */
const upper = (m: unknown): string => {
  if (m === undefined || m === null) return 'GET';
  const text = typeof m === 'string' ? m : String(m);
  return text === '' ? 'GET' : text.toUpperCase();
};

function parsed(url: string | URL): URL | undefined {
  try {
    return typeof url === 'string' ? new URL(url) : url;
  } catch {
    return undefined;
  }
}

const hostOfUrl = (url: URL | undefined): string | undefined => url?.hostname.replace(/^\[(.*)\]$/, '$1') || undefined;

const noop = (): void => {};

// --- fetch

function fetchTarget(input: unknown, init: unknown): { method: string; host: string | undefined; path: string } {
  const request = typeof Request === 'function' && input instanceof Request ? input : undefined;
  const method = upper((init as { method?: unknown } | undefined)?.method ?? request?.method);
  const url = parsed(request !== undefined ? request.url : input instanceof URL ? input : String(input));
  return { method, host: hostOfUrl(url), path: url !== undefined ? url.pathname : '/' };
}

function wrapFetch(original: Fn): Fn {
  return function fetch(this: unknown, ...args: unknown[]): unknown {
    const tool = guard().fence !== undefined ? activeTool() : undefined;
    if (tool !== undefined) {
      const refusal = safely(
        'guard fetch',
        () => {
          const { method, host, path } = fetchTarget(args[0], args[1]);
          return fenceRefusal(tool, method, host, path);
        },
        undefined,
      );
      if (refusal !== undefined) {
        // A caller that awaits it gets the refusal; one that dropped it (fire and forget) is not an
        // unhandled rejection that would end the process (and every other user's run in it).
        const refused = Promise.reject(refusal);
        refused.catch(noop);
        return refused;
      }
    }
    return Reflect.apply(original, this, args);
  };
}

// --- node:http, node:https

interface Target {
  method: string;
  host: string | undefined;
  path: string;
}

/** A URL-like object as node:http takes one in place of a URL (its own test: `isURL` in lib/internal/url.js). */
const urlLike = (v: unknown): v is { href: string } =>
  v instanceof URL ||
  (v !== null &&
    typeof v === 'object' &&
    typeof (v as Record<string, unknown>)['href'] === 'string' &&
    typeof (v as Record<string, unknown>)['protocol'] === 'string' &&
    (v as Record<string, unknown>)['auth'] === undefined &&
    (v as Record<string, unknown>)['path'] === undefined);

/** A host without its port: `example.com:8080`, `[::1]:443`, `::1` (a bare IPv6 address has no port to cut). */
function withoutPort(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') > 0 ? host.indexOf(']') : undefined);
  const colons = host.split(':').length - 1;
  return colons === 1 ? host.slice(0, host.indexOf(':')) : host;
}

/** A request target in absolute form (`http://api.example.com/charge`), as a client sends it through an HTTP proxy: the host it names is the real one. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The real target of a request to `host` with `path`: through a proxy (absolute form), the host and path it names. */
function realTarget(method: string, host: string | undefined, path: string): Target {
  if (ABSOLUTE_FORM.test(path)) {
    const url = parsed(path);
    if (url !== undefined) return { method, host: hostOfUrl(url), path: `${url.pathname}${url.search}` };
  }
  return { method, host, path };
}

/** What `request(url?, options?, callback?)` asks for, as node:http reads its arguments. */
function httpTarget(args: unknown[]): Target {
  let url: URL | undefined;
  let options: Record<string, unknown> = {};
  const [a, b] = args;
  if (typeof a === 'string' || urlLike(a)) {
    url = new URL(typeof a === 'string' ? a : a.href);
    if (b !== null && typeof b === 'object') options = b as Record<string, unknown>;
  } else if (a !== null && typeof a === 'object') {
    options = a as Record<string, unknown>;
  }
  // node:http takes `hostname` first, else `host` (which may carry a port), else the URL's, else localhost.
  const byName = typeof options['hostname'] === 'string' && options['hostname'] !== '' ? options['hostname'].replace(/^\[(.*)\]$/, '$1') : undefined;
  const byHost = typeof options['host'] === 'string' && options['host'] !== '' ? withoutPort(options['host']) : undefined;
  const path = typeof options['path'] === 'string' ? options['path'] : url !== undefined ? `${url.pathname}${url.search}` : '/';
  return realTarget(upper(options['method'] ?? 'GET'), byName ?? byHost ?? (url !== undefined ? hostOfUrl(url) : 'localhost'), path);
}

/**
 * A refused request's error reaches the app only if it listens: checked when the error is emitted (the
 * app adds its listener after `request()` returns). A request nobody listens to (fire and forget) just
 * closes: an unhandled 'error' would end the process, and every other user's run in it.
 */
function quietUnlessHeard(req: ClientRequest): void {
  const emit = req.emit;
  req.emit = function (this: ClientRequest, event: string | symbol, ...rest: unknown[]): boolean {
    if (event === 'error' && this.listenerCount('error') === 0) return false;
    return Reflect.apply(emit, this, [event, ...rest]) as boolean;
  } as ClientRequest['emit'];
}

/** The guard's work on a node:http request `tool` made, before it has a socket: refused, or keyed. */
function guardHttpRequest(tool: CommitSink, req: ClientRequest, target: Target): void {
  const refusal = safely('guard http fence', () => fenceRefusal(tool, target.method, target.host, target.path), undefined);
  if (refusal !== undefined) {
    // Destroyed before it has a socket: nothing is written; the app's 'error' listener gets the refusal.
    safely(
      'guard http fence',
      () => {
        quietUnlessHeard(req);
        req.destroy(refusal);
      },
      undefined,
    );
    return;
  }
  // Keyed while its headers can still change (http.get has already ended its request: no key).
  if (guard().keys !== undefined && !req.headersSent) {
    safely(
      'guard http key',
      () => {
        const keyed = guardKey(
          tool,
          target.method,
          target.host,
          target.path,
          (h) => {
            const v = req.getHeader(h);
            return v === undefined ? undefined : String(v);
          },
          (h, k) => req.setHeader(h, k),
        );
        if (keyed !== undefined) keyedHttpRequests.set(req, keyed);
      },
      undefined,
    );
  }
}

/** Requests being made through the wrappers (their ClientRequest is guarded by the wrapper, not the channel). */
let wrapping = 0;

function wrapHttp(original: Fn): Fn {
  return function request(this: unknown, ...args: unknown[]): unknown {
    const tool = activeTool();
    if (tool === undefined) return Reflect.apply(original, this, args);
    // The request is made first (node:http sends nothing before its socket, a tick away): arguments it
    // refuses throw to the app as they would without afterstop, and no refusal is recorded for them.
    let req: ClientRequest;
    wrapping++;
    try {
      req = Reflect.apply(original, this, args) as ClientRequest;
    } finally {
      wrapping--;
    }
    const target = safely('guard http', () => httpTarget(args), undefined);
    if (target !== undefined) guardHttpRequest(tool, req, target);
    return req;
  };
}

/**
 * A ClientRequest made otherwise than through the wrapped `request`/`get` (`new http.ClientRequest(...)`,
 * a reference taken before afterstop was set up): guarded when it is created, on the channel Node
 * publishes in its constructor (before the agent gives it a socket).
 */
function clientRequestCreated(message: unknown): void {
  if (wrapping > 0) return;
  safely(
    'guard http (created)',
    () => {
      const req = (message as { request?: ClientRequest } | undefined)?.request;
      if (req === undefined) return;
      const tool = activeTool();
      if (tool === undefined) return;
      const host = typeof req.host === 'string' && req.host !== '' ? withoutPort(req.host) : undefined;
      guardHttpRequest(tool, req, realTarget(upper(req.method), host, typeof req.path === 'string' ? req.path : '/'));
    },
    undefined,
  );
}
const CLIENT_REQUEST_CREATED = 'http.client.request.created';

/** What the guard wraps: [holder, property, wrapper]. */
function targets(): [Record<string, unknown>, string, (original: Fn) => Fn][] {
  const http = require('node:http') as Record<string, unknown>;
  const https = require('node:https') as Record<string, unknown>;
  return [
    [globalThis as unknown as Record<string, unknown>, 'fetch', wrapFetch],
    [http, 'request', wrapHttp],
    [http, 'get', wrapHttp],
    [https, 'request', wrapHttp],
    [https, 'get', wrapHttp],
  ];
}

let installed: { holder: Record<string, unknown>; name: string; original: unknown; wrapper: Fn }[] | undefined;

function install(): void {
  if (installed !== undefined) return;
  installed = [];
  for (const [holder, name, wrap] of targets()) {
    const original = holder[name];
    if (typeof original !== 'function' || (original as unknown as Record<symbol, unknown>)[WRAPPED] === true) continue;
    const wrapper = wrap(original as Fn);
    Object.defineProperty(wrapper, WRAPPED, { value: true });
    Object.defineProperty(wrapper, 'name', { value: (original as Fn).name });
    holder[name] = wrapper;
    installed.push({ holder, name, original, wrapper });
  }
  syncBuiltinESMExports();
  guardChannels.subscribe();
  dc.subscribe(CLIENT_REQUEST_CREATED, clientRequestCreated);
}

/** Put back what is still ours (an app that wrapped it again after us keeps its own). */
function uninstall(): void {
  if (installed === undefined) return;
  for (const { holder, name, original, wrapper } of installed) if (holder[name] === wrapper) holder[name] = original;
  installed = undefined;
  syncBuiltinESMExports();
  guardChannels.release();
  dc.unsubscribe(CLIENT_REQUEST_CREATED, clientRequestCreated);
}

/** Install the wrappers while the fence or the keys are on; remove them when both are off. */
export function applyHttpGuard(g: ResolvedGuard): void {
  try {
    if (g.fence !== undefined || g.keys !== undefined) install();
    else uninstall();
  } catch (error) {
    reportInternalError('guard install', error);
  }
}

/** Whether the wrappers are in place (for tests). */
export const httpGuardInstalled = (): boolean => installed !== undefined;
