import * as dc from 'node:diagnostics_channel';
import type { Attributes } from '@opentelemetry/api';
import { safely } from './safe.js';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVER_ADDRESS, ATTR_TOOL_COMMIT_UNANSWERED_MS } from './semconv.js';
import type { CommitEvidence } from './types.js';
import { activeTool, type CommitSink } from './run-context.js';

/**
 * Commits found without user code: a tool body's HTTP request that is not a
 * safe method (GET, HEAD, OPTIONS, TRACE) and whose body reached the server
 * is a side effect of that tool. It is a commit with evidence `response`
 * when a non-error answer (status below 400) came back, or `request_sent`
 * when the body was sent and the answer was lost (the abort closed the
 * connection, the socket reset). An answer of 400 or more says the server
 * did not do it: no commit.
 *
 * Read from Node's diagnostics channels, so nothing is patched: fetch and
 * undici (`undici:request:*`) and node:http (`http.client.*`). The request
 * is tied to its tool when it is created, in the body's async context.
 */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

interface Pending {
  tool: CommitSink;
  attributes: Attributes;
  sent: boolean;
  /** performance.now() when the body reached the socket: the service has the request from then on. */
  sentAt: number;
  done: boolean;
}

const pending = new WeakMap<object, Pending>();

function track(request: object, method: unknown, host: unknown): Pending | undefined {
  const tool = activeTool();
  if (tool === undefined) return undefined;
  const m = typeof method === 'string' ? method.toUpperCase() : 'GET';
  if (SAFE_METHODS.has(m)) return undefined;
  const attributes: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: m };
  if (typeof host === 'string' && host !== '') attributes[ATTR_SERVER_ADDRESS] = host;
  const p: Pending = { tool, attributes, sent: false, sentAt: 0, done: false };
  pending.set(request, p);
  return p;
}

function answered(request: unknown, status: unknown): void {
  const p = typeof request === 'object' && request !== null ? pending.get(request) : undefined;
  if (p === undefined || p.done) return;
  p.done = true;
  if (typeof status !== 'number' || status >= 400) return;
  commit(p, 'response', { [ATTR_HTTP_RESPONSE_STATUS_CODE]: status });
}

function lost(request: unknown): void {
  const p = typeof request === 'object' && request !== null ? pending.get(request) : undefined;
  if (p === undefined || p.done) return;
  p.done = true;
  // The service had the request from sentAt; whether and when it committed is not known (the answer is lost).
  if (p.sent) commit(p, 'request_sent', { [ATTR_TOOL_COMMIT_UNANSWERED_MS]: Math.max(0, Math.round((performance.now() - p.sentAt) * 1000) / 1000) });
}

function bodySent(p: Pending): void {
  if (p.sent) return;
  p.sent = true;
  p.sentAt = performance.now();
}

function commit(p: Pending, evidence: CommitEvidence, extra?: Attributes): void {
  p.tool.commitObserved(evidence, Object.assign({}, p.attributes, extra));
}

function hostOf(origin: unknown): string | undefined {
  try {
    return typeof origin === 'string' ? new URL(origin).hostname : origin instanceof URL ? origin.hostname : undefined;
  } catch {
    return undefined;
  }
}

type Message = { request?: { method?: unknown; origin?: unknown; host?: unknown; once?: (event: string, fn: () => void) => unknown }; response?: { statusCode?: unknown } };

const handlers: Record<string, (message: Message) => void> = {
  // fetch and undici
  'undici:request:create': ({ request }) => request && void track(request, request.method, hostOf(request.origin)),
  'undici:request:bodySent': ({ request }) => {
    const p = request ? pending.get(request) : undefined;
    if (p) bodySent(p);
  },
  'undici:request:headers': ({ request, response }) => answered(request, response?.statusCode),
  'undici:request:error': ({ request }) => lost(request),
  // node:http (and https, and what is built on them)
  'http.client.request.start': ({ request }) => {
    if (!request) return;
    const p = track(request, request.method, request.host);
    if (p === undefined || typeof request.once !== 'function') return;
    // 'finish': the body was handed to the socket; 'close': the request is over, answered or not.
    // (No 'response' or 'error' listener: either would change what node:http does with the app's request.)
    request.once('finish', () => bodySent(p));
    request.once('close', () => lost(request));
  },
  'http.client.response.finish': ({ request, response }) => answered(request, response?.statusCode),
};

const subscribers: Record<string, (message: unknown) => void> = Object.fromEntries(
  Object.entries(handlers).map(([channel, handle]) => [channel, (message: unknown) => safely(`http commit (${channel})`, () => handle((message ?? {}) as Message), undefined)]),
);

let subscribed = 0;

/** Subscribe (counted: each subscribe() is undone by one release()). */
function subscribe(): void {
  if (subscribed++ === 0) for (const [channel, fn] of Object.entries(subscribers)) dc.subscribe(channel, fn);
}

function release(): void {
  if (subscribed > 0 && --subscribed === 0) for (const [channel, fn] of Object.entries(subscribers)) dc.unsubscribe(channel, fn);
}

/** Enabled instrumentations: the auto-instrumentations turn on `detectCommits` for their tools only while there is one. */
let enabledDetectors = 0;
export const httpCommitsDetected = (): boolean => enabledDetectors > 0;

/**
 * A manual tool call asked for detection (`detectCommits: true`): watch the
 * channels from now on, for the life of the process (a manual opt-in is not
 * undone by switching the auto-instrumentation off).
 */
let manual = false;
export function detectHttpCommitsForManualTools(): void {
  if (manual) return;
  manual = true;
  subscribe();
}

/** An auto-instrumentation's detector switched on (counted: each is undone by {@link detectorDisabled}). */
export function detectorEnabled(): void {
  enabledDetectors++;
  subscribe();
}

export function detectorDisabled(): void {
  if (enabledDetectors === 0) return;
  enabledDetectors--;
  release();
}
