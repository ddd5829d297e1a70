import * as dc from 'node:diagnostics_channel';
import { context, isSpanContextValid, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type SpanContext } from '@opentelemetry/api';
import { parseTraceParent } from './provider/propagator.js';
import { hrTime } from './otel-compat.js';
import { safely } from './safe.js';
import { activeTool, type CommitSink } from './run-context.js';
import { headerValue, MCP_PROTOCOL_HEADER, streamedContentType } from './http-message.js';
import { resolveTraceContext, type ResolvedTraceContext } from './trace-context-config.js';
import { ATTR_ERROR_TYPE, ATTR_ERROR_TYPE_REQUEST_LOST, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_REQUEST_TRACE_CONTEXT, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_URL_SCHEME } from './semconv.js';
import type { TraceContextOptions } from './types.js';

/**
 * Trace context on a tool's HTTP requests (SEMCONV.md, "Trace context on tool
 * requests"). A request made in a tool call's context (fetch and undici on
 * `undici:request:create`, node:http/https on `http.client.request.created`),
 * to a host not excluded, whose headers carry no `traceparent` yet, gets
 * afterstop's request span (named by its method, kind CLIENT, a child of the
 * tool span) and carries it as W3C `traceparent` (and `tracestate`): through
 * the OpenTelemetry propagation API when a W3C propagator is registered, else
 * in afterstop's own W3C format. Baggage is never added (the app's baggage is
 * not sent to every service a tool calls). A service traced with
 * OpenTelemetry then puts its spans under the tool call, in the same trace.
 *
 * The span ends when the answer's headers arrive (a streamed answer's: when
 * its body ends or is cut, as commit-detection.ts reads it), or when the
 * request is lost (ERROR, `error.type = request_lost`). It records the method,
 * the server's address, port and scheme: never the URL's path or query, nor
 * a header or the body.
 *
 * A request that already has `traceparent` (the app's own HTTP
 * instrumentation, or its code) gets nothing: its commit reads the span id
 * from that header. OpenTelemetry's undici instrumentation adds its header in
 * `undici:request:create` too, and may run after afterstop: the request then
 * carries its header alone (afterstop's is taken out when the other is added,
 * never two), and afterstop's span, no longer the request's parent, is never
 * ended (so never exported). Node lines without `http.client.request.created`
 * (before 22.12) give node:http requests no context; fetch and undici have it.
 * A node:http request whose headers were given as an array has them written
 * at once: it gets none either.
 *
 * Telemetry's own requests (an exporter's, made with tracing suppressed) are
 * in no tool's context: they get nothing.
 */

interface RequestSpan {
  span: Span;
  /** The `traceparent` value afterstop put on the request. */
  traceparent: string;
  /** The headers afterstop added, as [name, value]. */
  added: [string, string][];
  /** Its answer streams (a request to an MCP Streamable HTTP server). */
  streams: boolean;
  /** A streamed answer's status, while its body is still coming. */
  awaitingBody: number | undefined;
  done: boolean;
}

const requests = new WeakMap<object, RequestSpan>();

let settings: ResolvedTraceContext = { enabled: false, excluded: undefined };

const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443 };

/** The W3C `traceparent` (and `tracestate`) of `sc`: through the registered propagator when it writes W3C, else afterstop's own. */
function contextHeaders(sc: SpanContext, span: Span): [string, string][] {
  const carrier: Record<string, unknown> = {};
  safely('trace context inject', () => propagation.inject(trace.setSpan(context.active(), span), carrier), undefined);
  const parent = carrier['traceparent'];
  if (typeof parent === 'string' && parseTraceParent(parent)?.spanId === sc.spanId) {
    const state = carrier['tracestate'];
    return typeof state === 'string' && state !== ''
      ? [
          ['traceparent', parent],
          ['tracestate', state],
        ]
      : [['traceparent', parent]];
  }
  const own: [string, string][] = [['traceparent', `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`]];
  const state = sc.traceState?.serialize();
  if (state !== undefined && state !== '') own.push(['tracestate', state]);
  return own;
}

interface Target {
  method: string;
  scheme: string;
  host: string;
  port: number | undefined;
}

/** The request span for `target`, under the tool span; undefined when its host is excluded or no valid context comes of it. */
function startSpan(tool: CommitSink, target: Target): { span: Span; headers: [string, string][] } | undefined {
  // A CONNECT opens a tunnel through a proxy (its request is the tunnel's, not the tool's): none.
  if (target.method === 'CONNECT' || settings.excluded?.(target.host) === true) return undefined;
  const known = KNOWN_METHODS.has(target.method);
  const attributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: known ? target.method : '_OTHER',
    [ATTR_SERVER_ADDRESS]: target.host,
    [ATTR_URL_SCHEME]: target.scheme,
    [ATTR_REQUEST_TRACE_CONTEXT]: 'injected',
  };
  const port = target.port ?? DEFAULT_PORTS[target.scheme];
  if (port !== undefined) attributes[ATTR_SERVER_PORT] = port;
  const parent = trace.setSpanContext(context.active(), tool.spanContext);
  const span = tool.tracer.startSpan(known ? target.method : 'HTTP', { kind: SpanKind.CLIENT, startTime: hrTime(), attributes }, parent);
  const sc = span.spanContext();
  if (!isSpanContextValid(sc)) return undefined;
  return { span, headers: contextHeaders(sc, span) };
}

function track(request: object, span: Span, headers: [string, string][], streams: boolean): RequestSpan {
  const r: RequestSpan = { span, traceparent: headers[0]![1], added: headers, streams, awaitingBody: undefined, done: false };
  requests.set(request, r);
  return r;
}

/** The request's `traceparent` now (the first, when there are several): undici's header list, or a ClientRequest's. */
function traceparentOf(request: object): string | undefined {
  const own = request as { getHeader?: (name: string) => unknown; headers?: unknown };
  if (typeof own.getHeader === 'function') {
    const v = own.getHeader('traceparent');
    return Array.isArray(v) ? (v[0] === undefined ? undefined : String(v[0])) : v === undefined ? undefined : String(v);
  }
  return headerValue(own.headers, 'traceparent');
}

/** The span id the request's `traceparent` carries (afterstop's request span, or the app's own), if it carries one. */
export function requestSpanIdOf(request: object): string | undefined {
  const value = traceparentOf(request);
  return value === undefined ? undefined : (parseTraceParent(value)?.spanId ?? undefined);
}

/** End the request's span: answered with `status`, or lost. A span whose header another took over is left unended (never exported). */
function end(request: object, r: RequestSpan, status: number | undefined, lost: boolean): void {
  if (r.done) return;
  r.done = true;
  requests.delete(request);
  if (traceparentOf(request) !== r.traceparent) return;
  const span = r.span;
  if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (lost) {
    span.setAttribute(ATTR_ERROR_TYPE, ATTR_ERROR_TYPE_REQUEST_LOST);
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else if (status !== undefined && status >= 400) {
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end(hrTime());
}

function answered(request: unknown, status: unknown, contentType: unknown): void {
  const r = typeof request === 'object' && request !== null ? requests.get(request) : undefined;
  if (r === undefined || r.done || r.awaitingBody !== undefined) return;
  const code = typeof status === 'number' ? status : undefined;
  if (code !== undefined && code < 400 && (r.streams || streamedContentType(contentType))) {
    r.awaitingBody = code;
    return;
  }
  end(request as object, r, code, false);
}

function bodyEnded(request: unknown): void {
  const r = typeof request === 'object' && request !== null ? requests.get(request) : undefined;
  if (r !== undefined && r.awaitingBody !== undefined) end(request as object, r, r.awaitingBody, false);
}

function lost(request: unknown): void {
  const r = typeof request === 'object' && request !== null ? requests.get(request) : undefined;
  if (r !== undefined) end(request as object, r, r.awaitingBody, true);
}

// --- fetch and undici

type UndiciRequest = { method?: unknown; origin?: unknown; headers?: unknown; addHeader?: (name: string, value: string) => unknown };

/** The target of an undici request: its origin's scheme, host and port. */
function undiciTarget(request: UndiciRequest): Target | undefined {
  let url: URL;
  try {
    url = typeof request.origin === 'string' ? new URL(request.origin) : request.origin instanceof URL ? request.origin : new URL('x:');
  } catch {
    return undefined;
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return undefined;
  return { method: typeof request.method === 'string' ? request.method.toUpperCase() : 'GET', scheme: url.protocol.replace(/:$/, ''), host, port: url.port === '' ? undefined : Number(url.port) };
}

/** Take afterstop's headers out of an undici request's header list (`[k, v, ...]`, or the older `k: v\r\n` text). */
function removeAdded(request: UndiciRequest, added: [string, string][]): void {
  const headers = request.headers;
  const ours = (k: unknown, v: unknown): boolean => added.some(([name, value]) => String(k).toLowerCase() === name && String(v) === value);
  if (Array.isArray(headers)) {
    for (let i = headers.length - 2; i >= 0; i -= 2) if (ours(headers[i], headers[i + 1])) headers.splice(i, 2);
  } else if (typeof headers === 'string') {
    request.headers = headers
      .split('\r\n')
      .filter((line) => {
        const at = line.indexOf(':');
        return at <= 0 || !ours(line.slice(0, at).trim(), line.slice(at + 1).trim());
      })
      .join('\r\n');
  }
}

function undiciCreated(request: UndiciRequest): void {
  const tool = activeTool();
  if (tool === undefined || typeof request.addHeader !== 'function' || headerValue(request.headers, 'traceparent') !== undefined) return;
  const target = undiciTarget(request);
  if (target === undefined) return;
  const started = startSpan(tool, target);
  if (started === undefined) return;
  const addHeader = request.addHeader;
  const ownAddHeader = Object.hasOwn(request, 'addHeader');
  for (const [name, value] of started.headers) addHeader.call(request, name, value);
  const r = track(request, started.span, started.headers, headerValue(request.headers, MCP_PROTOCOL_HEADER) !== undefined);
  // A later subscriber of the channel (OpenTelemetry's undici instrumentation) adding its own `traceparent`
  // takes the request over: afterstop's headers come out first, so the request never carries two.
  // (On this request object only, for the rest of the channel's subscribers; removed when the request ends.)
  Object.defineProperty(request, 'addHeader', {
    configurable: true,
    writable: true,
    value: function (this: UndiciRequest, name: string, value: string): unknown {
      if (typeof name === 'string' && name.toLowerCase() === 'traceparent' && !r.done) safely('trace context (another traceparent)', () => removeAdded(request, r.added), undefined);
      return Reflect.apply(addHeader, this, [name, value]);
    },
  });
  wrapped.set(request, () => {
    if (ownAddHeader) request.addHeader = addHeader;
    else delete request.addHeader;
  });
}

/** Requests whose `addHeader` afterstop wrapped, and how to put it back. */
const wrapped = new WeakMap<object, () => void>();

/** The request's own `addHeader` is put back once the request is on its way (the create channel is long past). */
function settleAddHeader(request: unknown): void {
  if (typeof request !== 'object' || request === null) return;
  const restore = wrapped.get(request);
  if (restore === undefined) return;
  wrapped.delete(request);
  restore();
}

// --- node:http, node:https

type ClientRequest = {
  method?: unknown;
  host?: unknown;
  path?: unknown;
  protocol?: unknown;
  headersSent?: boolean;
  getHeader?: (name: string) => unknown;
  setHeader?: (name: string, value: string) => unknown;
  once?: (event: string, fn: () => void) => unknown;
};

/** A ClientRequest's target: its protocol and host, the port its Host header names; through a proxy (absolute-form path), the URL it names. */
function nodeTarget(req: ClientRequest): Target | undefined {
  const method = typeof req.method === 'string' ? req.method.toUpperCase() : 'GET';
  if (typeof req.path === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(req.path)) {
    try {
      const url = new URL(req.path);
      return { method, scheme: url.protocol.replace(/:$/, ''), host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port === '' ? undefined : Number(url.port) };
    } catch {
      return undefined;
    }
  }
  const scheme = typeof req.protocol === 'string' ? req.protocol.replace(/:$/, '') : 'http';
  const host = typeof req.host === 'string' ? req.host.replace(/^\[(.*)\]$/, '$1') : '';
  if (host === '') return undefined;
  const hostHeader = req.getHeader?.('host');
  const port = typeof hostHeader === 'string' ? /:(\d+)$/.exec(hostHeader)?.[1] : undefined;
  return { method, scheme, host, port: port === undefined ? undefined : Number(port) };
}

function nodeCreated(req: ClientRequest): void {
  const tool = activeTool();
  if (tool === undefined || req.headersSent === true || typeof req.setHeader !== 'function' || typeof req.getHeader !== 'function' || req.getHeader('traceparent') !== undefined) return;
  const target = nodeTarget(req);
  if (target === undefined) return;
  const started = startSpan(tool, target);
  if (started === undefined) return;
  for (const [name, value] of started.headers) req.setHeader(name, value);
  track(req, started.span, started.headers, req.getHeader(MCP_PROTOCOL_HEADER) !== undefined);
  // 'close': the request is over; unanswered by then, it was lost. (No 'error' or 'response' listener: either would change what node:http does.)
  if (typeof req.once === 'function') req.once('close', () => safely('trace context (request close)', () => requests.get(req)?.awaitingBody === undefined && lost(req), undefined));
}

type NodeResponse = { statusCode?: unknown; headers?: Record<string, unknown>; complete?: unknown; once?: (event: string, fn: () => void) => unknown };

function nodeAnswered(request: unknown, response: NodeResponse | undefined): void {
  answered(request, response?.statusCode, response?.headers?.['content-type']);
  const r = typeof request === 'object' && request !== null ? requests.get(request) : undefined;
  if (r === undefined || r.awaitingBody === undefined || typeof response?.once !== 'function') return;
  response.once('close', () => safely('trace context (response close)', () => (response.complete === true ? bodyEnded(request) : lost(request)), undefined));
}

type Message = { request?: object; response?: { statusCode?: unknown; headers?: unknown } };

const handlers: Record<string, (message: Message) => void> = {
  'undici:request:create': ({ request }) => request && undiciCreated(request as UndiciRequest),
  'undici:request:headers': ({ request, response }) => {
    settleAddHeader(request);
    answered(request, response?.statusCode, headerValue(response?.headers, 'content-type'));
  },
  'undici:request:trailers': ({ request }) => bodyEnded(request),
  'undici:request:error': ({ request }) => {
    settleAddHeader(request);
    lost(request);
  },
  'http.client.request.created': ({ request }) => request && nodeCreated(request as ClientRequest),
  'http.client.response.finish': ({ request, response }) => nodeAnswered(request, response as NodeResponse | undefined),
};

const subscribers: Record<string, (message: unknown) => void> = Object.fromEntries(
  Object.entries(handlers).map(([channel, handle]) => [channel, (message: unknown) => safely(`trace context (${channel})`, () => handle((message ?? {}) as Message), undefined)]),
);

let subscribed = false;

/** Trace context is on: tool calls carry themselves in their body's context for it (tool.ts). */
export const traceContextOn = (): boolean => subscribed;

/** Switch trace context to `next`: the channels watched while it is on, and not otherwise. */
function apply(next: ResolvedTraceContext): void {
  settings = next;
  if (next.enabled && !subscribed) {
    for (const [channel, fn] of Object.entries(subscribers)) dc.subscribe(channel, fn);
    subscribed = true;
  } else if (!next.enabled && subscribed) {
    for (const [channel, fn] of Object.entries(subscribers)) dc.unsubscribe(channel, fn);
    subscribed = false;
  }
}

/** Trace context as `options` (over `AFTERSTOP_TRACE_CONTEXT*` of `env`) say: set up with the pipeline and by `setup({ traceContext })`. Never throws. */
export function setupTraceContext(options: TraceContextOptions | undefined, env: Record<string, string | undefined> = process.env): void {
  safely('trace context setup', () => apply(resolveTraceContext(options, env)), undefined);
}

/** Off until set up again (the pipeline's shutdown): nothing watched, nothing injected. */
export function stopTraceContext(): void {
  safely('trace context stop', () => apply({ enabled: false, excluded: undefined }), undefined);
}
