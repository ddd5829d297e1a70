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

/** What `request(url?, options?, callback?)` asks for, as node:http reads its arguments. */
function httpTarget(args: unknown[]): Target {
  let url: URL | undefined;
  let options: Record<string, unknown> = {};
  const [a, b] = args;
  if (typeof a === 'string' || a instanceof URL) {
    url = typeof a === 'string' ? new URL(a) : a;
    if (b !== null && typeof b === 'object') options = b as Record<string, unknown>;
  } else if (a !== null && typeof a === 'object') {
    options = a as Record<string, unknown>;
  }
  const rawHost = options['hostname'] ?? options['host'];
  const host = typeof rawHost === 'string' && rawHost !== '' ? rawHost.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1') : url !== undefined ? hostname(url) : 'localhost';
  const path = typeof options['path'] === 'string' ? options['path'] : url !== undefined ? `${url.pathname}${url.search}` : '/';
  return { method: upper(options['method']), host, path };
}

function wrapHttp(original: Fn): Fn {
  return function request(this: unknown, ...args: unknown[]): unknown {
    const tool = activeTool();
    if (tool === undefined) return Reflect.apply(original, this, args);
    const target = safely('guard http', () => httpTarget(args), undefined);
    const refusal = target === undefined ? undefined : safely('guard http fence', () => fenceRefusal(tool, target.method, target.host), undefined);
    const req = Reflect.apply(original, this, args) as ClientRequest;
    if (refusal !== undefined) {
      // Destroyed before it has a socket: nothing is written; the app's 'error' listener gets the refusal.
      safely('guard http fence', () => req.destroy(refusal), undefined);
      return req;
    }
    if (target !== undefined && guard().keys !== undefined) {
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
