import * as dc from 'node:diagnostics_channel';
import type { Attributes } from '@opentelemetry/api';
import { safely } from './safe.js';
import {
  ATTR_GUARD_FENCE_PASSED,
  ATTR_GUARD_IDEMPOTENCY_KEY,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_TOOL_COMMIT_REQUEST_SPAN_ID,
  ATTR_TOOL_COMMIT_ROUND_TRIP_MS,
  ATTR_TOOL_COMMIT_UNANSWERED_MS,
} from './semconv.js';
import { fenceHolds, fencePassage, guard, keyFor, pathnameOf, unreadStatus, type KeyedAttempt } from './guard/index.js';
import type { CommitEvidence } from './types.js';
import { activeTool, type CommitSink } from './run-context.js';
import { headerValue, hostOf, MCP_PROTOCOL_HEADER, methodOf, streamedContentType } from './http-message.js';
import { requestSpanIdOf } from './request-span.js';

export { streamedContentType } from './http-message.js';

/**
 * Commits found without user code: a tool body's HTTP request that is not a
 * safe method (GET, HEAD, OPTIONS, TRACE) and whose body reached the server
 * is a side effect of that tool. It is a commit with evidence `response`
 * when a non-error answer (status below 400) came back, or `request_sent`
 * when the body was sent and the answer was lost (the abort closed the
 * connection, the socket reset). An answer of 400 or more says the server
 * did not do it: no commit.
 *
 * A streamed answer is an answer when it ends: a response whose content type
 * streams (`text/event-stream`, NDJSON / JSON Lines / JSON text sequences), or
 * any answer to an MCP Streamable HTTP request (it carries
 * `MCP-Protocol-Version`), is not a commit at its headers (a 200 before the
 * tool's work is done); it is a `response` commit when its body ends (undici's
 * `undici:request:trailers`, node:http's response fully read), and a cut one
 * is `request_sent` (the service had the request; what it did is not known).
 *
 * A commit names the span its request's `traceparent` carried (afterstop's
 * request span, request-span.ts, or the app's own client span), and a
 * `response` its round trip, from the body reaching the socket to the answer.
 *
 * Read from Node's diagnostics channels, so nothing is patched: fetch and
 * undici (`undici:request:*`) and node:http (`http.client.*`). The request
 * is tied to its tool when it is created, in the body's async context.
 */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** The key a guarded request carries (afterstop's, told how the request ends; or the app's own). */
export interface RequestKey {
  key: string;
  attempt?: KeyedAttempt | undefined;
}

interface Pending {
  /** The request (its `traceparent` names the commit's request span). */
  request: object;
  tool: CommitSink;
  attributes: Attributes;
  /** Its commit is recorded (the tool detects commits); otherwise it is followed for its key only. */
  detect: boolean;
  attempt: KeyedAttempt | undefined;
  sent: boolean;
  /** performance.now() when the body reached the socket: the service has the request from then on. */
  sentAt: number;
  /** performance.now() when the request was made (the round trip's start when its body's sending was not seen). */
  createdAt: number;
  /** Its run was already stopped when the request was made: an answer after Stop is then after Stop whole. */
  madeAfterStop: boolean;
  done: boolean;
  /** Its answer streams (known from the request: an MCP Streamable HTTP request). */
  streams: boolean;
  /** A streamed answer's status, while its body is still coming: the commit waits for the body's end. */
  awaitingBody: number | undefined;
}

const pending = new WeakMap<object, Pending>();

/** node:http requests the guard keyed when they were made (http-guard.ts), for the channel that sees them later. */
export const keyedHttpRequests = new WeakMap<object, RequestKey>();

/** `streams`: whether its answer streams, asked only of a request that is tracked (its header is read then, not for every request). */
function track(request: object, method: string, host: unknown, keyed: RequestKey | undefined, streams: () => boolean = () => false, path: unknown = '/'): Pending | undefined {
  const tool = activeTool();
  if (tool === undefined || SAFE_METHODS.has(method)) return undefined;
  if (!tool.detectsCommits && keyed?.attempt === undefined) return undefined;
  const attributes: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: method };
  if (typeof host === 'string' && host !== '') attributes[ATTR_SERVER_ADDRESS] = host;
  if (keyed !== undefined) attributes[ATTR_GUARD_IDEMPOTENCY_KEY] = keyed.key;
  // Made after the Stop and let through by the fence that holds it (a cancel call, cleanup): its commit says why.
  const hostName = typeof host === 'string' ? host : undefined;
  if (tool.runStopped() && fenceHolds(tool, hostName)) {
    const passage = fencePassage(tool, method, hostName, typeof path === 'string' ? path : '/');
    if (passage !== undefined) attributes[ATTR_GUARD_FENCE_PASSED] = passage;
  }
  const p: Pending = {
    request,
    tool,
    attributes,
    detect: tool.detectsCommits,
    attempt: keyed?.attempt,
    sent: false,
    sentAt: 0,
    createdAt: performance.now(),
    madeAfterStop: tool.runStopped(),
    done: false,
    streams: streams(),
    awaitingBody: undefined,
  };
  pending.set(request, p);
  if (p.detect) tool.requestOpened();
  return p;
}

/** The request's outcome is known (answered, or lost): its tool no longer waits for it. */
function settle(p: Pending): void {
  if (p.done) return;
  p.done = true;
  if (p.detect) p.tool.requestSettled();
}

/**
 * The guard's key for a mutating request of `tool` to `host`, when the guard keys that host: the app's own
 * (`existing` reads the header, lower-case name), or a derived one, which `add` puts on the request. Undefined: no key.
 */
export function guardKey(tool: CommitSink, method: string, host: string | undefined, path: string, existing: (header: string) => string | undefined, add: (header: string, key: string) => void): RequestKey | undefined {
  const keys = guard().keys;
  if (keys === undefined || host === undefined || SAFE_METHODS.has(method) || !keys.hosts(host)) return undefined;
  const own = existing(keys.header);
  if (own !== undefined) return { key: own };
  const attempt = keyFor(tool, method, host, pathnameOf(path), keys);
  if (attempt === undefined) return undefined;
  add(keys.header, attempt.key);
  return { key: attempt.key, attempt };
}

function answered(request: unknown, status: unknown, contentType?: unknown): void {
  const p = typeof request === 'object' && request !== null ? pending.get(request) : undefined;
  if (p === undefined || p.done || p.awaitingBody !== undefined) return;
  p.attempt?.ended(typeof status !== 'number' || unreadStatus(status));
  if (!p.detect || typeof status !== 'number' || status >= 400) {
    settle(p);
    return;
  }
  // A streamed answer's headers are not the effect: the commit waits for its body's end (or its loss).
  if (p.streams || streamedContentType(contentType)) {
    p.awaitingBody = status;
    return;
  }
  settle(p);
  commit(p, 'response', { [ATTR_HTTP_RESPONSE_STATUS_CODE]: status, [ATTR_TOOL_COMMIT_ROUND_TRIP_MS]: roundTripMs(p) });
}

/** A streamed answer's body ended whole: that is its answer, a commit now. */
function bodyEnded(request: unknown): void {
  const p = typeof request === 'object' && request !== null ? pending.get(request) : undefined;
  if (p === undefined || p.done || p.awaitingBody === undefined) return;
  settle(p);
  commit(p, 'response', { [ATTR_HTTP_RESPONSE_STATUS_CODE]: p.awaitingBody, [ATTR_TOOL_COMMIT_ROUND_TRIP_MS]: roundTripMs(p) });
}

function lost(request: unknown): void {
  const p = typeof request === 'object' && request !== null ? pending.get(request) : undefined;
  if (p === undefined || p.done) return;
  settle(p);
  // A streamed answer cut after its headers: its key's attempt was told at the headers.
  if (p.awaitingBody !== undefined) {
    if (p.detect) commit(p, 'request_sent', { [ATTR_HTTP_RESPONSE_STATUS_CODE]: p.awaitingBody, [ATTR_TOOL_COMMIT_UNANSWERED_MS]: unansweredMs(p) });
    return;
  }
  p.attempt?.ended(true);
  if (!p.detect) return;
  // The service had the request from sentAt; whether and when it committed is not known (the answer is lost).
  if (p.sent) commit(p, 'request_sent', { [ATTR_TOOL_COMMIT_UNANSWERED_MS]: unansweredMs(p) });
}

const unansweredMs = (p: Pending): number => Math.max(0, Math.round((performance.now() - p.sentAt) * 1000) / 1000);

/**
 * From the request's making to its answer now: the effect happened inside it. Not from the body reaching the
 * socket: under load undici reports that later than the service has the request (a start too late could put the
 * whole interval after Stop when the effect came before it).
 */
const roundTripMs = (p: Pending): number => Math.max(0, Math.round((performance.now() - p.createdAt) * 1000) / 1000);

function bodySent(p: Pending): void {
  if (p.sent) return;
  p.sent = true;
  p.sentAt = performance.now();
}

function commit(p: Pending, evidence: CommitEvidence, extra?: Attributes): void {
  const attributes = Object.assign({}, p.attributes, extra);
  // The span its `traceparent` named (afterstop's request span, or the app's own client span): the service's spans are under it.
  const spanId = requestSpanIdOf(p.request);
  if (spanId !== undefined) attributes[ATTR_TOOL_COMMIT_REQUEST_SPAN_ID] = spanId;
  // An answer whose request was sent before the Stop: its effect may lie on either side of it (METRICS.md §2, the interval rule).
  p.tool.commitObserved(evidence, attributes, { acrossStop: evidence === 'response' && !p.madeAfterStop });
}

type Message = {
  request?: { method?: unknown; origin?: unknown; host?: unknown; path?: unknown; headers?: unknown; addHeader?: (key: string, value: string) => unknown; once?: (event: string, fn: () => void) => unknown };
  response?: { statusCode?: unknown; headers?: unknown };
};

type NodeRequest = NonNullable<Message['request']> & { getHeader?: (name: string) => unknown };
type NodeResponse = { headers?: Record<string, unknown>; complete?: unknown; once?: (event: string, fn: () => void) => unknown };

/** A fetch or undici request being made: tracked for its commit, and keyed when the guard keys its host. */
function undiciCreated(request: NonNullable<Message['request']>): void {
  const tool = activeTool();
  if (tool === undefined) return;
  const method = methodOf(request.method);
  const host = hostOf(request.origin);
  const keyed =
    typeof request.addHeader === 'function'
      ? guardKey(
          tool,
          method,
          host,
          typeof request.path === 'string' ? request.path : '/',
          (h) => headerValue(request.headers, h),
          (h, k) => request.addHeader!(h, k),
        )
      : undefined;
  track(request, method, host, keyed, () => headerValue(request.headers, MCP_PROTOCOL_HEADER) !== undefined, request.path);
}

/** A node:http answer: a streamed one is a commit when the response is fully read, `request_sent` when it closes cut. */
function httpAnswered(request: NodeRequest | undefined, response: NodeResponse | undefined): void {
  answered(request, (response as { statusCode?: unknown } | undefined)?.statusCode, response?.headers?.['content-type']);
  const p = request ? pending.get(request) : undefined;
  if (p === undefined || p.awaitingBody === undefined || typeof response?.once !== 'function') return;
  // 'close' only (no 'data' or 'end' listener: either would change how the app reads the response).
  response.once('close', () => safely('http commit (response close)', () => (response.complete === true ? bodyEnded(request) : lost(request)), undefined));
}

const handlers: Record<string, (message: Message) => void> = {
  // fetch and undici
  'undici:request:create': ({ request }) => request && undiciCreated(request),
  'undici:request:bodySent': ({ request }) => {
    const p = request ? pending.get(request) : undefined;
    if (p) bodySent(p);
  },
  'undici:request:headers': ({ request, response }) => answered(request, response?.statusCode, headerValue(response?.headers, 'content-type')),
  // The body ended whole (with or without trailers): a streamed answer's commit.
  'undici:request:trailers': ({ request }) => bodyEnded(request),
  'undici:request:error': ({ request }) => lost(request),
  // node:http (and https, and what is built on them)
  'http.client.request.start': ({ request }) => {
    if (!request) return;
    const own = request as NodeRequest;
    const streams = (): boolean => typeof own.getHeader === 'function' && own.getHeader(MCP_PROTOCOL_HEADER) !== undefined;
    const p = track(request, methodOf(request.method), request.host, keyedHttpRequests.get(request), streams, request.path);
    if (p === undefined || typeof request.once !== 'function') return;
    // 'finish': the body was handed to the socket; 'close': the request is over, answered or not.
    // (No 'response' or 'error' listener: either would change what node:http does with the app's request.)
    request.once('finish', () => bodySent(p));
    // (A streamed answer's fate is its response's: its 'close' comes after the request's when it is cut.)
    request.once('close', () => {
      if (p.awaitingBody === undefined) lost(request);
    });
  },
  'http.client.response.finish': ({ request, response }) => httpAnswered(request as NodeRequest | undefined, response as NodeResponse | undefined),
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

/** The guard's keys need the channels (counted like a detector; see http-guard.ts). */
export const guardChannels = { subscribe, release };

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
