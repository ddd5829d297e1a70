import * as dc from 'node:diagnostics_channel';
import * as http from 'node:http';
import { context, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setup, startRun } from '../index.js';
import { setupTraceContext, traceContextOn } from '../request-span.js';
import { resolveTraceContext } from '../trace-context-config.js';
import type { FlatSpan } from '../../analyzer/index.js';
import { captureTraces, named, type TraceCapture } from '../../test/helpers/capture.js';

/**
 * Trace context on a tool's HTTP requests, against a real server in this process that records the
 * `traceparent` headers it received: fetch, undici and node:http, the request span that is their parent,
 * the commit markers that name it, and where nothing is added.
 */
let capture: TraceCapture;
let server: http.Server;
let port: number;
/** What the server received, by path: the `traceparent` values (every one, in order) and `tracestate`. */
const received = new Map<string, { traceparent: string[]; tracestate: string | undefined }>();
/** Paths the server answers this way: a status, `drop` (the connection closed, no answer), `stream` (SSE, its body ends when the test calls {@link endStream}). */
const answers = new Map<string, number | 'drop' | 'stream'>();
/** Ends the streamed answer under way. */
let endStream: () => void = () => undefined;

beforeAll(async () => {
  capture = captureTraces();
  server = http.createServer((req, res) => {
    const values: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'traceparent') values.push(req.rawHeaders[i + 1]!);
    const path = (req.url ?? '/').split('?')[0]!;
    received.set(path, { traceparent: values, tracestate: req.headers['tracestate'] as string | undefined });
    req.resume();
    req.on('end', () => {
      const answer = answers.get(path) ?? 200;
      if (answer === 'drop') return void req.socket.destroy();
      if (answer === 'stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
        endStream = () => res.end('data: 2\n\n');
        return;
      }
      res.statusCode = answer;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await capture.close();
});
beforeEach(() => {
  setupTraceContext(undefined, {});
});

const url = (path: string, host = '127.0.0.1'): string => `http://${host}:${port}${path}`;

const fetchPost = async (u: string, headers: Record<string, string> = {}): Promise<void> => {
  await (await fetch(u, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' })).text();
};
const undiciPost = async (u: string): Promise<void> => {
  await (await undiciRequest(u, { method: 'POST', body: '{}' })).body.text();
};
function httpCall(u: string, method = 'POST', headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(u, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

const spanIdOf = (traceparent: string | undefined): string | undefined => traceparent?.split('-')[2];

/** The spans of the run's trace (request spans carry no run id: found by the trace). */
async function traceOf(runId: string): Promise<{ spans: FlatSpan[]; tool: (callId: string) => FlatSpan }> {
  const all = await capture.spans();
  const run = all.find((s) => s.attributes['afterstop.run.id'] === runId && s.name.startsWith('invoke_agent'))!;
  const spans = all.filter((s) => s.traceId === run.traceId);
  return { spans, tool: (callId) => spans.find((s) => s.name.startsWith('execute_tool') && s.attributes['gen_ai.tool.call.id'] === callId)! };
}

describe('trace context on the HTTP requests a tool makes', () => {
  it('fetch, undici and node:http (POST and GET) carry traceparent of afterstop’s request span, a CLIENT child of the tool span named by the method, with no path', async () => {
    const run = startRun({ framework: 'manual' });
    await run.tool({ name: 'send', callId: 'call_fetch' }, () => fetchPost(url('/fetch?secret=1')));
    await run.tool({ name: 'send', callId: 'call_undici' }, () => undiciPost(url('/undici')));
    await run.tool({ name: 'send', callId: 'call_http' }, () => httpCall(url('/http')));
    await run.tool({ name: 'read', callId: 'call_get' }, () => httpCall(url('/get'), 'GET'));
    run.end();
    const { spans, tool } = await traceOf(run.id);
    const requests: FlatSpan[] = [];
    for (const [path, callId, method] of [
      ['/fetch', 'call_fetch', 'POST'],
      ['/undici', 'call_undici', 'POST'],
      ['/http', 'call_http', 'POST'],
      ['/get', 'call_get', 'GET'],
    ] as const) {
      const got = received.get(path)!;
      expect(got.traceparent, path).toHaveLength(1);
      const request = spans.find((s) => s.spanId === spanIdOf(got.traceparent[0]))!;
      expect(request, path).toBeDefined();
      requests.push(request);
      expect(got.traceparent[0]).toBe(`00-${request.traceId}-${request.spanId}-01`);
      expect(request.parentSpanId).toBe(tool(callId).spanId);
      // On the clock of every afterstop span (hrTime): inside its tool span, as it happened.
      expect(request.startNs >= tool(callId).startNs && request.endNs <= tool(callId).endNs, path).toBe(true);
      expect(request.name).toBe(method);
      expect(request.kind).toBe(3);
      expect(request.statusCode).not.toBe(2);
      expect(request.attributes).toEqual({
        'http.request.method': method,
        'server.address': '127.0.0.1',
        'server.port': port,
        'url.scheme': 'http',
        'afterstop.request.trace_context': 'injected',
        'http.response.status_code': 200,
      });
    }
    // Dated by Date.now(), every start would fall on a whole millisecond (and a marker could sort after a span
    // that started after it).
    expect(requests.every((r) => r.startNs % 1_000_000n === 0n)).toBe(false);
    expect(traceContextOn()).toBe(true);
  });

  it('a commit marker names its request span and the round trip; a lost answer and a status of 400 or more make the span an error', async () => {
    answers.set('/lost', 'drop');
    answers.set('/refused', 503);
    const run = startRun({ framework: 'manual' });
    const sentAt = performance.now();
    await run.tool({ name: 'charge', callId: 'call_ok', detectCommits: true }, () => fetchPost(url('/ok')));
    const tookMs = performance.now() - sentAt;
    await run.tool({ name: 'charge', callId: 'call_lost', detectCommits: true }, () => httpCall(url('/lost')).catch(() => 0));
    await run.tool({ name: 'charge', callId: 'call_refused', detectCommits: true }, () => fetchPost(url('/refused')));
    run.end();
    const { spans } = await traceOf(run.id);
    const commits = named(spans, 'afterstop.tool.commit');
    const ok = commits.find((c) => c.attributes['gen_ai.tool.call.id'] === 'call_ok')!;
    expect(ok.attributes['afterstop.tool.commit.evidence']).toBe('response');
    expect(ok.attributes['afterstop.tool.commit.request_span_id']).toBe(spanIdOf(received.get('/ok')!.traceparent[0]));
    const roundTrip = ok.attributes['afterstop.tool.commit.round_trip_ms'] as number;
    expect(roundTrip).toBeGreaterThanOrEqual(0);
    expect(roundTrip).toBeLessThanOrEqual(tookMs);
    const lost = commits.find((c) => c.attributes['gen_ai.tool.call.id'] === 'call_lost')!;
    expect(lost.attributes['afterstop.tool.commit.evidence']).toBe('request_sent');
    const lostId = spanIdOf(received.get('/lost')!.traceparent[0]);
    expect(lost.attributes['afterstop.tool.commit.request_span_id']).toBe(lostId);
    expect(lost.attributes['afterstop.tool.commit.round_trip_ms']).toBeUndefined();
    const lostSpan = spans.find((s) => s.spanId === lostId)!;
    expect(lostSpan.statusCode).toBe(2);
    expect(lostSpan.attributes['error.type']).toBe('request_lost');
    const refused = spans.find((s) => s.spanId === spanIdOf(received.get('/refused')!.traceparent[0]))!;
    expect(refused.statusCode).toBe(2);
    expect(refused.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
    // A 503 is no commit.
    expect(commits.map((c) => c.attributes['gen_ai.tool.call.id']).sort()).toEqual(['call_lost', 'call_ok']);
  });

  it('a streamed answer’s span ends when its body ends, not at its headers', async () => {
    answers.set('/sse', 'stream');
    const run = startRun({ framework: 'manual' });
    let exportedAtHeaders: FlatSpan[] = [];
    await run.tool({ name: 'watch', callId: 'call_sse' }, async () => {
      const res = await fetch(url('/sse'), { method: 'POST', body: '{}' });
      // Every span ended so far, flushed and read back while the client holds the headers only. (Compared by
      // event, not by time: a span's clock is anchored to Date.now() at its start, the test's is not.)
      exportedAtHeaders = await capture.spans();
      // The body ends only now.
      endStream();
      await res.text();
    });
    run.end();
    const { spans } = await traceOf(run.id);
    const id = spanIdOf(received.get('/sse')!.traceparent[0]);
    // Ended at the headers, the span would have been exported before the body ended.
    expect(exportedAtHeaders.some((s) => s.spanId === id)).toBe(false);
    const span = spans.find((s) => s.spanId === id)!;
    expect(span.endNs).toBeGreaterThan(span.startNs);
    expect(span.attributes['http.response.status_code']).toBe(200);
  });

  it('a request that already carries traceparent (the app’s own HTTP instrumentation) keeps it alone: no span of afterstop’s, its commit names the app’s span', async () => {
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const run = startRun({ framework: 'manual' });
    await run.tool({ name: 'charge', callId: 'call_own_fetch', detectCommits: true }, () => fetchPost(url('/own-fetch'), { traceparent: own }));
    await run.tool({ name: 'charge', callId: 'call_own_http', detectCommits: true }, () => httpCall(url('/own-http'), 'POST', { traceparent: own }));
    run.end();
    expect(received.get('/own-fetch')!.traceparent).toEqual([own]);
    expect(received.get('/own-http')!.traceparent).toEqual([own]);
    const { spans } = await traceOf(run.id);
    expect(spans.filter((s) => s.kind === 3)).toEqual([]);
    const commits = named(spans, 'afterstop.tool.commit');
    expect(commits.map((c) => c.attributes['afterstop.tool.commit.request_span_id'])).toEqual(['b7ad6b7169203331', 'b7ad6b7169203331']);
  });

  for (const how of ['appends', 'removes then adds'] as const) {
    it(`another subscriber of undici:request:create that ${how} its own traceparent after afterstop (OpenTelemetry’s undici instrumentation) is the request’s only one`, async () => {
      const other = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const theirs = ({ request }: { request: { headers: unknown[]; addHeader: (k: string, v: string) => void } }): void => {
        if (how === 'removes then adds') {
          for (let i = request.headers.length - 2; i >= 0; i -= 2) if (String(request.headers[i]).toLowerCase() === 'traceparent') request.headers.splice(i, 2);
        }
        request.addHeader('traceparent', other);
      };
      const subscriber = theirs as unknown as (message: unknown) => void;
      dc.subscribe('undici:request:create', subscriber);
      const path = `/other-${how.split(' ')[0]}`;
      const run = startRun({ framework: 'manual' });
      try {
        await run.tool({ name: 'charge', callId: 'call_other', detectCommits: true }, () => fetchPost(url(path)));
      } finally {
        dc.unsubscribe('undici:request:create', subscriber);
      }
      run.end();
      expect(received.get(path)!.traceparent).toEqual([other]);
      const { spans } = await traceOf(run.id);
      // afterstop's span, no longer the request's parent, is not exported.
      expect(spans.filter((s) => s.kind === 3)).toEqual([]);
      expect(named(spans, 'afterstop.tool.commit')[0]!.attributes['afterstop.tool.commit.request_span_id']).toBe('00f067aa0ba902b7');
    });
  }

  it('nothing outside a tool, nor in a tool with tracing suppressed (an exporter’s request), nor to an excluded host, nor with AFTERSTOP_TRACE_CONTEXT=off', async () => {
    const run = startRun({ framework: 'manual' });
    await fetchPost(url('/outside'));
    await run.tool({ name: 'send', callId: 'call_suppressed' }, () => context.with(suppressTracing(context.active()), () => fetchPost(url('/suppressed'))));
    setupTraceContext({ excludeHosts: ['localhost', '*.example.com'] }, {});
    await run.tool({ name: 'send', callId: 'call_excluded' }, async () => {
      await fetchPost(url('/excluded', 'localhost'));
      await httpCall(url('/excluded-http', 'localhost'));
      await fetchPost(url('/included'));
    });
    setupTraceContext(undefined, { AFTERSTOP_TRACE_CONTEXT: 'off' });
    expect(traceContextOn()).toBe(false);
    await run.tool({ name: 'send', callId: 'call_off' }, async () => {
      await fetchPost(url('/off'));
      await httpCall(url('/off-http'));
    });
    run.end();
    for (const path of ['/outside', '/suppressed', '/excluded', '/excluded-http', '/off', '/off-http']) expect(received.get(path)!.traceparent, path).toEqual([]);
    expect(received.get('/included')!.traceparent).toHaveLength(1);
    const { spans } = await traceOf(run.id);
    expect(spans.filter((s) => s.kind === 3)).toHaveLength(1);
  });

  it('a foreign tool call’s body (a framework writing its own execute_tool span) gets it too, under the foreign span, with neither http-commits nor the guard on', async () => {
    let foreign: { traceId: string; spanId: string } | undefined;
    await trace.getTracer('strands-agents', '1.0.0').startActiveSpan('execute_tool send_email', async (span) => {
      foreign = span.spanContext();
      await fetchPost(url('/foreign'));
      span.end();
    });
    const got = received.get('/foreign')!.traceparent;
    expect(got).toHaveLength(1);
    const spans = (await capture.spans()).filter((s) => s.traceId === foreign!.traceId);
    const request = spans.find((s) => s.spanId === spanIdOf(got[0]))!;
    expect(request.parentSpanId).toBe(foreign!.spanId);
    expect(request.scope).toBe('afterstop');
  });

  it('the settings: code over the environment, each on its own; off by `enabled: false` and by setup({ traceContext })', async () => {
    expect(resolveTraceContext({}, {}).enabled).toBe(true);
    expect(resolveTraceContext({}, { AFTERSTOP_TRACE_CONTEXT: 'OFF' }).enabled).toBe(false);
    expect(resolveTraceContext({ enabled: true }, { AFTERSTOP_TRACE_CONTEXT: 'off' }).enabled).toBe(true);
    const env = resolveTraceContext({}, { AFTERSTOP_TRACE_CONTEXT_EXCLUDE_HOSTS: 'a.com, *.b.com' }).excluded!;
    expect([env('a.com'), env('x.b.com'), env('b.com'), env('c.com')]).toEqual([true, true, false, false]);
    expect(resolveTraceContext({ excludeHosts: ['c.com'] }, { AFTERSTOP_TRACE_CONTEXT_EXCLUDE_HOSTS: 'a.com' }).excluded!('a.com')).toBe(false);
    setup({ traceContext: { enabled: false } });
    expect(traceContextOn()).toBe(false);
    const run = startRun({ framework: 'manual' });
    await run.tool({ name: 'send', callId: 'call_setup_off' }, () => fetchPost(url('/setup-off')));
    run.end();
    expect(received.get('/setup-off')!.traceparent).toEqual([]);
    setup({ traceContext: {} });
    expect(traceContextOn()).toBe(true);
  });
});
