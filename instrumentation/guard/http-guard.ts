import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { ClientRequest } from 'node:http';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_SERVER_ADDRESS } from '../semconv.js';
import { CommitFencedError } from '../errors.js';
import { guardChannels, guardKey, keyedHttpRequests, SAFE_METHODS } from '../commit-detection.js';
import { activeTool, type CommitSink } from '../run-context.js';
import { reportInternalError, safely } from '../safe.js';
import { guard, type ResolvedGuard } from './config.js';

/**
 * The guard's HTTP part: the commit fence, and idempotency keys on node:http.
 *
 * A tool's mutating request made once its run was stopped never leaves: the
 * fence wraps `fetch` and `request`/`get` of `node:http` and `node:https`,
 * which refuse it before anything is sent (a fetch rejects; a ClientRequest is
 * destroyed before it has a socket, and emits the error). The request is
 * judged when it is made: one made before the Stop is left alone, whatever
 * it is sending (cutting it would make its outcome unknown), and counted as
 * the commit detector counts it.
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
 * `syncBuiltinESMExports`; a reference an app took before afterstop was set
 * up (without `--import afterstop/register`) keeps the original.
 */
type Fn = (this: unknown, ...args: unknown[]) => unknown;

const require = createRequire(import.meta.url);
const WRAPPED = Symbol.for('afterstop.guard.wrapped');

/** The fence's answer for a request `tool` makes now: the error that refuses it (the marker written), or undefined. */
export function fenceRefusal(tool: CommitSink, method: string, host: string | undefined): CommitFencedError | undefined {
  const fence = guard().fence;
  if (fence === undefined || SAFE_METHODS.has(method) || !tool.fenceable || !tool.runStopped()) return undefined;
  if (!fence.all && !fence.tools.has(tool.toolName)) return undefined;
  if (fence.hosts !== undefined && (host === undefined || !fence.hosts(host))) return undefined;
  const attributes: Record<string, string> = { [ATTR_HTTP_REQUEST_METHOD]: method };
  if (host !== undefined) attributes[ATTR_SERVER_ADDRESS] = host;
  tool.commitPrevented(attributes);
  return new CommitFencedError(method, host, tool.runAbortReason());
}

const upper = (m: unknown): string => (typeof m === 'string' && m !== '' ? m.toUpperCase() : 'GET');

function hostname(url: string | URL): string | undefined {
  try {
    return (typeof url === 'string' ? new URL(url) : url).hostname.replace(/^\[(.*)\]$/, '$1') || undefined;
  } catch {
    return undefined;
  }
}

// --- fetch

function fetchTarget(input: unknown, init: unknown): { method: string; host: string | undefined } {
  const request = typeof Request === 'function' && input instanceof Request ? input : undefined;
  const method = upper((init as { method?: unknown } | undefined)?.method ?? request?.method);
  const url = request !== undefined ? request.url : input instanceof URL ? input : String(input);
  return { method, host: hostname(url) };
}

function wrapFetch(original: Fn): Fn {
  return function fetch(this: unknown, ...args: unknown[]): unknown {
    const tool = guard().fence !== undefined ? activeTool() : undefined;
    if (tool !== undefined) {
      const refusal = safely('guard fetch', () => {
        const { method, host } = fetchTarget(args[0], args[1]);
        return fenceRefusal(tool, method, host);
      }, undefined);
      if (refusal !== undefined) return Promise.reject(refusal);
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
  (v !== null && typeof v === 'object' && typeof (v as Record<string, unknown>)['href'] === 'string' && typeof (v as Record<string, unknown>)['protocol'] === 'string' &&
    (v as Record<string, unknown>)['auth'] === undefined && (v as Record<string, unknown>)['path'] === undefined);

/** A host without its port: `example.com:8080`, `[::1]:443`, `::1` (a bare IPv6 address has no port to cut). */
function withoutPort(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') > 0 ? host.indexOf(']') : undefined);
  const colons = host.split(':').length - 1;
  return colons === 1 ? host.slice(0, host.indexOf(':')) : host;
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
  return { method: upper(options['method'] ?? 'GET'), host: byName ?? byHost ?? (url !== undefined ? hostname(url) : 'localhost'), path };
}

function wrapHttp(original: Fn): Fn {
  return function request(this: unknown, ...args: unknown[]): unknown {
    const tool = activeTool();
    if (tool === undefined) return Reflect.apply(original, this, args);
    // The request is made first (node:http sends nothing before its socket, a tick away): arguments it
    // refuses throw to the app as they would without afterstop, and no refusal is recorded for them.
    const req = Reflect.apply(original, this, args) as ClientRequest;
    const target = safely('guard http', () => httpTarget(args), undefined);
    if (target === undefined) return req;
    const refusal = safely('guard http fence', () => fenceRefusal(tool, target.method, target.host), undefined);
    if (refusal !== undefined) {
      // Destroyed before it has a socket: nothing is written; the app's 'error' listener gets the refusal.
      safely('guard http fence', () => req.destroy(refusal), undefined);
      return req;
    }
    // Keyed while its headers can still change (http.get has already ended its request: no key).
    if (guard().keys !== undefined && !req.headersSent) {
      safely('guard http key', () => {
        const keyed = guardKey(tool, target.method, target.host, target.path, (h) => {
          const v = req.getHeader(h);
          return v === undefined ? undefined : String(v);
        }, (h, k) => req.setHeader(h, k));
        if (keyed !== undefined) keyedHttpRequests.set(req, keyed);
      }, undefined);
    }
    return req;
  };
}

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
}

/** Put back what is still ours (an app that wrapped it again after us keeps its own). */
function uninstall(): void {
  if (installed === undefined) return;
  for (const { holder, name, original, wrapper } of installed) if (holder[name] === wrapper) holder[name] = original;
  installed = undefined;
  syncBuiltinESMExports();
  guardChannels.release();
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
