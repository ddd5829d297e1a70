import * as http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { context } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { afterStopCleanup, CommitFencedError, setup, startRun } from '../../index.js';
import { setupGuard } from '../../guard/setup.js';
import { startSimulator, type Simulator } from '../../../analyzer/simulator/index.js';
import { captureTraces, named, type TraceCapture } from '../../../test/helpers/capture.js';

/**
 * The guard never does harm (manual API, real servers): what carries the Stop or cleans up passes the
 * fence; what the fence refuses is refused however it is sent. (Through a framework's own tool runner:
 * no-harm-frameworks.test.ts; keys: idempotency-key.test.ts; fire and forget, the secret across
 * processes: no-harm-process.test.ts.)
 */
let capture: TraceCapture;
let sim: Simulator;
let server: http.Server;
let serverUrl: string;
let port: number;
/** What the plain server received: method, request target, its Idempotency-Key. */
const received: { method: string; path: string; key: string | undefined }[] = [];
/** Released by a test: the server's answer to /redirect-later waits for it. */
let releaseRedirect: () => void = () => {};

beforeAll(async () => {
  capture = captureTraces();
  sim = await startSimulator();
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', key: req.headers['idempotency-key'] as string | undefined });
      if (req.url === '/redirect-later') {
        new Promise<void>((resolve) => (releaseRedirect = resolve)).then(
          () => {
            res.writeHead(307, { location: '/redirected' });
            res.end();
          },
          () => {},
        );
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end('{"id":"x"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  serverUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  setupGuard(undefined, {});
  await sim.close();
  await new Promise((resolve) => server.close(resolve));
  await capture.close();
});
beforeEach(() => {
  received.length = 0;
  setup({ guard: { fence: true, idempotencyKeys: false } });
});

const send = (url: string, method = 'POST'): Promise<number> => fetch(url, { method, headers: { 'content-type': 'application/json' }, body: method === 'DELETE' ? null : '{}' }).then((r) => r.status);
const errorOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
/** node:http: resolves with the status, or with the request's error. */
function httpSend(req: http.ClientRequest): Promise<unknown> {
  return new Promise((resolve) => {
    req.on('response', (res) => (res.resume(), res.on('end', () => resolve(res.statusCode))));
    req.on('error', resolve);
    req.end('{}');
  });
}
const fenced = (e: unknown): boolean => CommitFencedError.isInstance(e);

describe('what carries the Stop passes the fence: cancel calls', () => {
  it('a POST whose last path segment is cancel, to the service the call started its work on, by fetch and node:http, and the OpenAI and Anthropic SDKs’ cancel calls; a marker records each as passed; other POSTs are refused', async () => {
    const run = startRun();
    const openai = new OpenAI({ baseURL: `${serverUrl}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: serverUrl, apiKey: 'sk-test', maxRetries: 0 });
    const outcomes = await run.tool({ name: 'export_report', callId: 'call_export' }, async () => [
      await send(`${serverUrl}/jobs`), // the call starts its job, then the user's Stop
      await run.cancel().then(() => 'stopped'),
      await send(`${serverUrl}/jobs/1/cancel`),
      await httpSend(http.request(`${serverUrl}/jobs/2/cancel/`, { method: 'POST' })),
      await openai.responses.cancel('resp_1').then(() => 200),
      await openai.batches.cancel('batch_1').then(() => 200),
      await openai.fineTuning.jobs.cancel('ftjob_1').then(() => 200),
      await anthropic.messages.batches.cancel('msgbatch_1').then(() => 200),
      await send(`${serverUrl}/v1/operations/op-1:cancel`),
      fenced(await errorOf(send(`${serverUrl}/jobs/3`))),
      fenced(await errorOf(send(`${serverUrl}/jobs/4/cancel`, 'PUT'))),
      fenced(await errorOf(send(`${serverUrl}/cancel-all`))),
    ]);
    run.end();
    expect(outcomes).toEqual([200, 'stopped', 200, 200, 200, 200, 200, 200, 200, true, true, true]);
    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /jobs',
      'POST /jobs/1/cancel',
      'POST /jobs/2/cancel/',
      'POST /v1/responses/resp_1/cancel',
      'POST /v1/batches/batch_1/cancel',
      'POST /v1/fine_tuning/jobs/ftjob_1/cancel',
      'POST /v1/messages/batches/msgbatch_1/cancel',
      'POST /v1/operations/op-1:cancel',
    ]);
    const spans = await capture.spans(run.id);
    const passed = named(spans, 'afterstop.tool.fence.passed').map((s) => s.attributes);
    expect(passed).toHaveLength(7);
    expect(passed.every((a) => a['afterstop.guard.fence.passed'] === 'cancel' && a['gen_ai.tool.call.id'] === 'call_export' && a['afterstop.cancel.state'] === 'requested')).toBe(true);
    expect(named(spans, 'afterstop.tool.commit.prevented')).toHaveLength(3);
  });

  it('a cancel call to a service the call had not posted to before the Stop is a new effect (a cancel_subscription tool run on after Stop): refused', async () => {
    const run = startRun();
    await run.cancel();
    const refused = await run.tool({ name: 'cancel_subscription', callId: 'call_sub' }, () => errorOf(send(`${serverUrl}/subscriptions/42/cancel`)));
    run.end();
    expect(fenced(refused)).toBe(true);
    expect(received).toEqual([]);
    const spans = await capture.spans(run.id);
    expect([named(spans, 'afterstop.tool.fence.passed'), named(spans, 'afterstop.tool.commit.prevented')].map((s) => s.length)).toEqual([0, 1]);
  });

  it('a tool the fence does not hold: its cancel call after Stop is sent as any request, and its commit does not say it passed a fence (the report counts it as any effect after Stop)', async () => {
    setup({ guard: { fence: ['charge_card'], idempotencyKeys: false } });
    const run = startRun();
    const status = await run.tool({ name: 'export_report', callId: 'call_unheld', detectCommits: true }, async () => {
      await send(`${serverUrl}/jobs`);
      await run.cancel();
      return send(`${serverUrl}/jobs/1/cancel`);
    });
    run.end();
    expect(status).toBe(200);
    const spans = await capture.spans(run.id);
    expect(named(spans, 'afterstop.tool.fence.passed')).toHaveLength(0);
    const commits = named(spans, 'afterstop.tool.commit').map((c) => c.attributes);
    expect(commits).toHaveLength(2);
    expect(commits.map((a) => a['afterstop.guard.fence.passed'])).toEqual([undefined, undefined]);
  });

  it('a cancel call passes without a marker when the run was not stopped (the fence had nothing to let through)', async () => {
    const run = startRun();
    expect(await run.tool({ name: 'export_report' }, () => send(`${serverUrl}/jobs/1/cancel`))).toBe(200);
    run.end();
    expect(named(await capture.spans(run.id), 'afterstop.tool.fence.passed')).toHaveLength(0);
  });
});

describe('cleanup passes the fence: afterStopCleanup', () => {
  it('a tool’s finally { DELETE /session } in afterStopCleanup reaches the service after Stop, through fetch, node:http and what it awaits; the same without it is refused; each passage is recorded', async () => {
    const run = startRun();
    const tool = run.tool({ name: 'browse', callId: 'call_browse' }, async () => {
      try {
        await run.cancel(); // the user's Stop, while the tool works
        return await send(`${serverUrl}/order`);
      } catch (error) {
        return error;
      } finally {
        await afterStopCleanup(async () => {
          await send(`${serverUrl}/session`, 'DELETE');
          await new Promise((resolve) => setImmediate(resolve));
          await httpSend(http.request(`${serverUrl}/lock`, { method: 'DELETE' }));
        });
        await errorOf(send(`${serverUrl}/session-plain`, 'DELETE'));
      }
    });
    expect(fenced(await tool)).toBe(true);
    run.end();
    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /session', 'DELETE /lock']);
    const spans = await capture.spans(run.id);
    expect(named(spans, 'afterstop.tool.fence.passed').map((s) => [s.attributes['afterstop.guard.fence.passed'], s.attributes['http.request.method']])).toEqual([
      ['cleanup', 'DELETE'],
      ['cleanup', 'DELETE'],
    ]);
    expect(named(spans, 'afterstop.tool.commit.prevented').map((s) => s.attributes['http.request.method'])).toEqual(['POST', 'DELETE']);
  });

  it('returns what its function returns, and throws what it throws', async () => {
    expect(afterStopCleanup(() => 42)).toBe(42);
    await expect(afterStopCleanup(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});

describe('what the fence refuses is refused however it is sent', () => {
  it('a method given as a String object (fetch sends it as POST)', async () => {
    const run = startRun();
    await run.cancel();
    const e = await run.tool({ name: 'charge' }, () => errorOf(fetch(`${serverUrl}/string-method`, { method: new String('POST') as unknown as string, body: '{}' })));
    run.end();
    expect(fenced(e)).toBe(true);
    expect(received).toEqual([]);
  });

  it('through an HTTP proxy (absolute-form target): the host judged and keyed is the one the path names', async () => {
    setup({ guard: { fence: { hosts: ['api.charge.example'] }, idempotencyKeys: { hosts: ['api.charge.example'] } } });
    // Our server stands in for the proxy: a client sends it `POST http://api.charge.example/charge`, as axios does under HTTP_PROXY.
    const viaProxy = (path: string) => http.request({ host: '127.0.0.1', port, method: 'POST', path, headers: { host: 'api.charge.example' } });
    const run = startRun();
    const before = await run.tool({ name: 'charge', callId: 'call_proxy_1' }, () => httpSend(viaProxy('http://api.charge.example/charge?x=1')));
    await run.cancel();
    const after = await run.tool({ name: 'charge', callId: 'call_proxy_2' }, () => httpSend(viaProxy('http://api.charge.example/charge')));
    run.end();
    expect(before).toBe(200);
    expect(fenced(after)).toBe(true);
    expect(received).toEqual([{ method: 'POST', path: 'http://api.charge.example/charge?x=1', key: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    const prevented = named(await capture.spans(run.id), 'afterstop.tool.commit.prevented');
    expect(prevented.map((s) => s.attributes['server.address'])).toEqual(['api.charge.example']);
  });

  it('new http.ClientRequest(...), not made through http.request: keyed while the run is live, refused after Stop', async () => {
    setup({ guard: { fence: true, idempotencyKeys: { hosts: ['127.0.0.1'] } } });
    const run = startRun();
    const clientRequest = (path: string) => new http.ClientRequest(`${serverUrl}${path}`, { method: 'POST' } as never);
    const live = await run.tool({ name: 'charge', callId: 'call_cr_1' }, () => httpSend(clientRequest('/client-request-live')));
    await run.cancel();
    const e = await run.tool({ name: 'charge', callId: 'call_cr_2' }, () => httpSend(clientRequest('/client-request')));
    run.end();
    expect(live).toBe(200);
    expect(fenced(e)).toBe(true);
    expect(received).toEqual([{ method: 'POST', path: '/client-request-live', key: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-8/) }]);
  });

  it('a sub-agent started inside the stopped tool: the fence follows its run up to the stopped parent', async () => {
    const run = startRun();
    const outer = run.tool({ name: 'research', callId: 'call_research' }, async () => {
      await run.cancel(); // the user's Stop, while the sub-agent is being set up
      const sub = startRun({ agentName: 'sub-agent' });
      try {
        return await sub.tool({ name: 'post_summary' }, () => errorOf(send(`${sim.url}/effects/sub_summary?delayMs=5`)));
      } finally {
        sub.end();
      }
    });
    const e = await outer;
    run.end();
    expect(fenced(e)).toBe(true);
    expect((e as CommitFencedError).cause).toBe(run.signal.reason);
    expect(sim.ledger.effects.filter((x) => x.name === 'sub_summary')).toEqual([]);
    // A run started outside any tool is its own: not held; nor one started in the stopped tool's context
    // once that call has ended (work its body left behind, serving someone else later).
    const free = startRun();
    expect(await free.tool({ name: 'post_summary' }, () => send(`${serverUrl}/free`))).toBe(200);
    free.end();
    let later: (() => Promise<unknown>) | undefined;
    const stopped = startRun();
    await stopped.cancel();
    await stopped.tool({ name: 'init_scheduler' }, async () => {
      // Bound to the body's context, as a timer or a pool made in the body keeps it.
      later = context.bind(context.active(), () => {
        const job = startRun({ agentName: 'scheduled' });
        return job.tool({ name: 'post_summary' }, () => send(`${serverUrl}/scheduled`)).finally(() => job.end());
      });
    });
    stopped.end();
    expect(await later!()).toBe(200);
    expect(received.map((r) => r.path)).toEqual(['/free', '/scheduled']);
  });

  it('a 307 answered after the Stop to a POST made before it: fetch follows it (the request was judged when made; docs/guard.md)', async () => {
    const run = startRun();
    const tool = run.tool({ name: 'charge' }, () => send(`${serverUrl}/redirect-later`));
    await new Promise<void>((resolve) => {
      const check = (): void => void (received.length > 0 ? resolve() : setImmediate(check));
      check();
    });
    await run.cancel();
    releaseRedirect();
    expect(await tool).toBe(200);
    run.end();
    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /redirect-later', 'POST /redirected']);
  });
});

describe('keys never shared by two intents (the simulator’s effect service honours them)', () => {
  it('call id "0" in two turns of one conversation with two charges, and call_1 in two users’ conversations named main: every charge is done', async () => {
    setup({ guard: { fence: false, idempotencyKeys: { hosts: ['127.0.0.1'] } } });
    const charge = async (conversationId: string, callId: string, amount: number) => {
      const run = startRun({ conversationId });
      await run.tool({ name: 'charge', callId, arguments: { amount } }, () => send(`${sim.url}/effects/weak_charge?delayMs=5`));
      run.end();
    };
    await charge('thread-7', '0', 5);
    await charge('thread-7', '0', 7);
    await charge('main', 'call_1', 5);
    await charge('main', 'call_1', 5);
    const charges = sim.ledger.effects.filter((e) => e.name === 'weak_charge');
    expect(charges.map((e) => e.outcome)).toEqual(['committed', 'committed', 'committed', 'committed']);
    expect(new Set(charges.map((e) => e.idempotencyKey)).size).toBe(4);
  });
});
