import * as http from 'node:http';
import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CommitFencedError, startRun, setup } from '../../index.js';
import { setupGuard } from '../../guard/setup.js';
import { httpGuardInstalled } from '../../guard/http-guard.js';
import { startSimulator, type Simulator } from '../../../analyzer/simulator/index.js';
import { captureTraces, named, sleep, type TraceCapture } from '../../../test/helpers/capture.js';
import { waitFor } from '../../../analyzer/test/simulator/helpers.js';

/**
 * The guard's HTTP part against real servers: the simulator's effect service
 * (its ledger is what happened) and a plain server that records the headers.
 */
let capture: TraceCapture;
let sim: Simulator;
let server: http.Server;
let serverUrl: string;
/** What the plain server received: method, path, the idempotency header. */
const received: { method: string; path: string; key: string | undefined; other: string | undefined }[] = [];
/** What the plain server answers next (then 200): a status, or `drop` (the connection closed, no answer). */
const answers: (number | 'drop')[] = [];

beforeAll(async () => {
  capture = captureTraces();
  sim = await startSimulator();
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', key: req.headers['idempotency-key'] as string | undefined, other: req.headers['x-request-key'] as string | undefined });
      const answer = answers.shift() ?? 200;
      if (answer === 'drop') return void req.socket.destroy();
      res.statusCode = answer;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://localhost:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  setupGuard(undefined, {});
  await sim.close();
  await new Promise((resolve) => server.close(resolve));
  await capture.close();
});
beforeEach(() => {
  received.length = 0;
  answers.length = 0;
});

const post = (url: string, init: RequestInit = {}): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"to":"alice@example.com"}', ...init });

/** node:http POST: resolves with the status, rejects with the request's error. */
function httpPost(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

const effectsNamed = (name: string) => sim.ledger.effects.filter((e) => e.name === name);
const errorOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('the commit fence', () => {
  beforeAll(() => setup({ guard: { fence: true } }));

  it('is installed while on, and its wrappers keep the built-ins’ names', () => {
    expect(httpGuardInstalled()).toBe(true);
    expect(globalThis.fetch.name).toBe('fetch');
    expect(http.request.name).toBe('request');
  });

  it('refuses a tool’s POST made after Stop, through fetch and node:http: nothing reaches the service, the tool gets an AbortError, a prevented-commit marker says what', async () => {
    const run = startRun({ conversationId: 'conv-fence' });
    const errors: unknown[] = [];
    const tool = run.tool({ name: 'send_email', callId: 'call_f1', effect: 'irreversible' }, async () => {
      await sleep(80); // the tool ignores the signal
      errors.push(await errorOf(post(`${sim.url}/effects/fenced_email?delayMs=10`)));
      errors.push(await errorOf(httpPost(`${sim.url}/effects/fenced_charge?delayMs=10`)));
    });
    await sleep(20);
    await run.cancel();
    await tool;
    run.end();
    await sleep(100);
    expect(effectsNamed('fenced_email')).toHaveLength(0);
    expect(effectsNamed('fenced_charge')).toHaveLength(0);
    expect(errors).toHaveLength(2);
    for (const e of errors) {
      expect(CommitFencedError.isInstance(e)).toBe(true);
      expect((e as Error).name).toBe('AbortError');
    }
    expect((errors[0] as CommitFencedError).cause).toBe(run.signal.reason);
    const prevented = named(await capture.spans(run.id), 'afterstop.tool.commit.prevented').map((s) => s.attributes);
    expect(prevented).toEqual([
      expect.objectContaining({
        'gen_ai.tool.name': 'send_email',
        'gen_ai.tool.call.id': 'call_f1',
        'afterstop.tool.effect': 'irreversible',
        'afterstop.cancel.state': 'requested',
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'gen_ai.conversation.id': 'conv-fence',
      }),
      expect.objectContaining({ 'gen_ai.tool.call.id': 'call_f1', 'http.request.method': 'POST' }),
    ]);
    expect(named(await capture.spans(run.id), 'afterstop.tool.commit')).toHaveLength(0);
  });

  it('never blocks a request of a run that was not stopped, nor GET or HEAD after Stop', async () => {
    const live = startRun();
    await live.tool({ name: 'send_email' }, async () => {
      expect((await post(`${sim.url}/effects/open_email?delayMs=5`)).status).toBe(200);
      expect(await httpPost(`${sim.url}/effects/open_charge?delayMs=5`)).toBe(200);
    });
    live.end();
    expect(effectsNamed('open_email')).toHaveLength(1);
    expect(effectsNamed('open_charge')).toHaveLength(1);

    const stopped = startRun();
    await stopped.cancel();
    const statuses = await stopped.tool({ name: 'lookup' }, async () => [
      (await fetch(`${serverUrl}/read`)).status,
      (await fetch(`${serverUrl}/read`, { method: 'HEAD' })).status,
      await new Promise<number>((resolve, reject) => http.get(`${serverUrl}/read`, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject)),
    ]);
    stopped.end();
    expect(statuses).toEqual([200, 200, 200]);
    expect(received.map((r) => r.method)).toEqual(['GET', 'HEAD', 'GET']);
    expect(named(await capture.spans(stopped.id), 'afterstop.tool.commit.prevented')).toHaveLength(0);
  });

  it('leaves alone a request made before Stop (it commits, and is counted as the detector counts it)', async () => {
    const run = startRun();
    const tool = run.tool({ name: 'pay', detectCommits: true }, () => post(`${sim.url}/effects/inflight_pay?delayMs=150`).then((r) => r.status));
    await sleep(40);
    await run.cancel();
    expect(await tool).toBe(200);
    run.end();
    expect(effectsNamed('inflight_pay')).toEqual([expect.objectContaining({ outcome: 'committed' })]);
    const spans = await capture.spans(run.id);
    expect(named(spans, 'afterstop.tool.commit.prevented')).toHaveLength(0);
    expect(named(spans, 'afterstop.tool.commit')).toHaveLength(1);
  });

  it('never holds a compensating call, nor telemetry’s own requests (tracing suppressed), nor code outside a tool', async () => {
    const run = startRun();
    await run.cancel();
    expect(await run.tool({ name: 'refund', kind: 'compensate' }, () => post(`${serverUrl}/refund`).then((r) => r.status))).toBe(200);
    expect(await run.tool({ name: 'export' }, () => context.with(suppressTracing(context.active()), () => post(`${serverUrl}/v1/traces`).then((r) => r.status)))).toBe(200);
    expect((await post(`${serverUrl}/outside`)).status).toBe(200);
    run.end();
    expect(received.map((r) => r.path)).toEqual(['/refund', '/v1/traces', '/outside']);
  });

  it('with hosts, holds only requests to those hosts; a tool name given as a string is a list of one', async () => {
    setup({ guard: { fence: { hosts: ['localhost'] } } });
    try {
      const run = startRun();
      await run.cancel();
      const toService = await run.tool({ name: 'charge' }, () => errorOf(post(`${serverUrl}/charge`)));
      const toOther = await run.tool({ name: 'charge' }, () => post(`${serverUrl.replace('localhost', '127.0.0.1')}/analytics`).then((r) => r.status));
      setup({ guard: { fence: 'charge' as never } });
      const named = await run.tool({ name: 'charge' }, () => errorOf(post(`${serverUrl}/charge-2`)));
      run.end();
      expect(CommitFencedError.isInstance(toService)).toBe(true);
      expect(toOther).toBe(200);
      expect(CommitFencedError.isInstance(named)).toBe(true);
      expect(received.map((r) => r.path)).toEqual(['/analytics']);
    } finally {
      setup({ guard: { fence: true } });
    }
  });

  it('with a list, holds the tools named and no other', async () => {
    setup({ guard: { fence: ['charge_card'] } });
    try {
      const run = startRun();
      await run.cancel();
      const charged = await run.tool({ name: 'charge_card' }, () => errorOf(post(`${serverUrl}/charge`)));
      const noted = await run.tool({ name: 'write_note' }, () => post(`${serverUrl}/note`).then((r) => r.status));
      run.end();
      expect(CommitFencedError.isInstance(charged)).toBe(true);
      expect(noted).toBe(200);
      expect(received.map((r) => r.path)).toEqual(['/note']);
    } finally {
      setup({ guard: { fence: true } });
    }
  });
});

describe('idempotency keys', () => {
  beforeAll(() => setup({ guard: { fence: false, idempotencyKeys: { hosts: ['127.0.0.1', 'localhost'] } } }));

  it('a replay of a tool call (same conversation, same call id and arguments, another run) carries the same key: the service does it once', async () => {
    // Strong ids, as a provider gives them (weak ones such as "thread-42" and "call_pay_1" scope keys by the run: idempotency-key.test.ts).
    const charge = async () => {
      const run = startRun({ conversationId: 'thread-5b1e9c2a-77f0-4d3e-9a61-0c8e4f2d7b13' });
      const body = await run.tool({ name: 'charge', callId: 'call_Vt8Qm2LxR4kPz9WcY1nB6sJd', arguments: { amount: 42 } }, async () => (await post(`${sim.url}/effects/keyed_charge?delayMs=5`)).json());
      run.end();
      return body as { effect_id: string; deduplicated: boolean };
    };
    const first = await charge();
    const replay = await charge();
    const effects = effectsNamed('keyed_charge');
    expect(effects.map((e) => e.outcome)).toEqual(['committed', 'deduplicated']);
    expect(effects[0]!.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(effects[1]!.idempotencyKey).toBe(effects[0]!.idempotencyKey);
    expect(replay).toMatchObject({ effect_id: first.effect_id, deduplicated: true });
  });

  it('another conversation or call id gets another key; two answered requests of one call get two keys; a request after one left unanswered, turned away unread or answered with a server error takes its key', async () => {
    const run = startRun({ conversationId: 'thread-43' });
    await run.tool({ name: 'notify', callId: 'call_n1' }, async () => {
      await post(`${serverUrl}/messages?channel=a`); // 0
      await post(`${serverUrl}/messages?channel=b`); // 1: a new key (the first was answered)
      answers.push('drop');
      await errorOf(post(`${serverUrl}/messages`)); // 2: no answer
      await post(`${serverUrl}/messages`); // 3: the retry, the key of 2
      answers.push(429);
      await post(`${serverUrl}/messages`); // 4: turned away unread
      await post(`${serverUrl}/messages`); // 5: the key of 4
      answers.push(503);
      await post(`${serverUrl}/messages`); // 6: a server error, its outcome unknown
      await httpPost(`${serverUrl}/messages`); // 7: the retry, the key of 6 (as Stripe retries a 5xx)
    });
    await run.tool({ name: 'notify', callId: 'call_n2' }, () => post(`${serverUrl}/messages`)); // 8: another call
    const other = startRun({ conversationId: 'thread-other' });
    await other.tool({ name: 'notify', callId: 'call_n1' }, () => post(`${serverUrl}/messages?channel=a`)); // 9: another conversation
    other.end();
    run.end();
    const keys = received.map((r) => r.key);
    expect(keys).toHaveLength(10);
    expect(keys.every((k) => typeof k === 'string' && k.length === 36)).toBe(true);
    expect([keys[2] === keys[3], keys[4] === keys[5], keys[6] === keys[7]]).toEqual([true, true, true]);
    expect(new Set([keys[0], keys[1], keys[2], keys[4], keys[6], keys[8], keys[9]]).size).toBe(7);
  });

  it('a retry turned away with 409 while the first request with its key is in progress keeps that key: the service charges once', async () => {
    const run = startRun({ conversationId: 'thread-409' });
    // The service commits at once and answers 1.5 s later; a request with a key in progress gets 409 at once.
    const url = `${sim.url}/effects/charge_409?delayMs=0&replyDelayMs=1500&conflictInProgress=1`;
    const statuses = await run.tool({ name: 'charge', callId: 'call_409' }, async () => {
      const seen: (number | string)[] = [];
      // The tool gives up on its first request once it was taken (its answer lost to the tool's own timeout).
      const giveUp = new AbortController();
      const first = post(url, { signal: giveUp.signal });
      await waitFor(() => effectsNamed('charge_409').length > 0);
      giveUp.abort();
      seen.push(
        await first.then(
          (r) => r.status,
          (e: Error) => e.name,
        ),
      );
      // Then retries, as a client does on 409, until it is answered otherwise.
      for (let attempt = 0; attempt < 20; attempt++) {
        const r = await post(url);
        seen.push(r.status);
        if (r.status !== 409) break;
        await sleep(200);
      }
      return seen;
    });
    run.end();
    expect(statuses[0]).toBe('AbortError');
    expect(statuses.slice(1, 2)).toEqual([409]);
    expect(statuses.at(-1)).toBe(200);
    const effects = effectsNamed('charge_409');
    // Ground truth: one charge, the retries all under the first request's key.
    expect(effects.filter((e) => e.outcome === 'committed')).toHaveLength(1);
    expect(effects.at(-1)!.outcome).toBe('deduplicated');
    expect(new Set(effects.map((e) => e.idempotencyKey)).size).toBe(1);
  });

  it('no key for a call whose id afterstop made up; without a conversation, the run scopes the key', async () => {
    const a = startRun();
    await a.tool({ name: 'charge' }, () => post(`${serverUrl}/anon`));
    await a.tool({ name: 'charge', callId: '0' }, () => post(`${serverUrl}/zero`));
    a.end();
    const b = startRun();
    await b.tool({ name: 'charge', callId: '0' }, () => post(`${serverUrl}/zero`));
    b.end();
    const [anon, zeroA, zeroB] = received.map((r) => r.key);
    expect(anon).toBeUndefined();
    expect(zeroA).toMatch(/^[0-9a-f-]{36}$/);
    expect(zeroB).not.toBe(zeroA); // the same id "0" in two runs of no conversation: two effects
  });

  it('node:http as its callers write it: an IPv6 hostname, `host`, a URL-like object', async () => {
    const port = (server.address() as { port: number }).port;
    setup({ guard: { fence: true, idempotencyKeys: { hosts: ['localhost', '::1'] } } });
    const v6 = http.createServer((req, res) => {
      received.push({ method: req.method ?? '', path: req.url ?? '', key: req.headers['idempotency-key'] as string | undefined, other: undefined });
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    const v6Port = await new Promise<number>((resolve, reject) => v6.once('error', reject).listen(0, '::1', () => resolve((v6.address() as { port: number }).port)));
    try {
      const send = (args: unknown[]): Promise<unknown> =>
        new Promise((resolve) => {
          const req = (http.request as (...a: unknown[]) => http.ClientRequest)(...args, (res: http.IncomingMessage) => (res.resume(), res.on('end', () => resolve(res.statusCode))));
          req.on('error', resolve);
          req.end('{}');
        });
      const run = startRun({ conversationId: 'forms' });
      await run.tool({ name: 'charge', callId: 'call_forms' }, async () => {
        await send([{ hostname: '::1', port: v6Port, path: '/v6', method: 'POST' }]);
        await send([{ host: 'localhost', port, path: '/host-port', method: 'POST' }]);
        await send([{ href: `http://localhost:${port}/url-like`, protocol: 'http:', hostname: 'localhost', port, pathname: '/url-like', search: '' }, { method: 'POST' }]);
      });
      await run.cancel();
      const refused = await run.tool({ name: 'charge', callId: 'call_forms2' }, () =>
        send([{ href: `http://localhost:${port}/after`, protocol: 'http:', hostname: 'localhost', port, pathname: '/after', search: '' }, { method: 'POST' }]),
      );
      run.end();
      expect(CommitFencedError.isInstance(refused)).toBe(true);
      expect(received.map((r) => [r.path, typeof r.key])).toEqual([
        ['/v6', 'string'],
        ['/host-port', 'string'],
        ['/url-like', 'string'],
      ]);
    } finally {
      setup({ guard: { fence: false, idempotencyKeys: { hosts: ['127.0.0.1', 'localhost'] } } });
      await new Promise((resolve) => v6.close(resolve));
    }
  });

  it('never replaces a key the app set; a host not listed, GET, and code outside a tool get none', async () => {
    setup({ guard: { idempotencyKeys: { hosts: ['localhost'], header: 'X-Request-Key' } } });
    try {
      const run = startRun();
      await run.tool({ name: 'charge', callId: 'call_k' }, async () => {
        await post(`${serverUrl}/own`, { headers: { 'x-request-key': 'app-key-1' } });
        await httpPost(`${serverUrl}/own-http`, { 'X-Request-Key': 'app-key-2' });
        await post(`${serverUrl}/derived`);
        await post(`${serverUrl.replace('localhost', '127.0.0.1')}/unlisted`);
        await fetch(`${serverUrl}/read`);
      });
      await post(`${serverUrl}/outside`);
      run.end();
      const byPath = Object.fromEntries(received.map((r) => [r.path, r.other]));
      expect(byPath['/own']).toBe('app-key-1');
      expect(byPath['/own-http']).toBe('app-key-2');
      expect(byPath['/derived']).toMatch(/^[0-9a-f-]{36}$/);
      expect(byPath['/unlisted']).toBeUndefined();
      expect(byPath['/read']).toBeUndefined();
      expect(byPath['/outside']).toBeUndefined();
      expect(received.every((r) => r.key === undefined)).toBe(true);
    } finally {
      setup({ guard: { idempotencyKeys: { hosts: ['127.0.0.1', 'localhost'] } } });
    }
  });

  it('a commit carries the key its request sent', async () => {
    const run = startRun({ conversationId: 'thread-44' });
    await run.tool({ name: 'charge', callId: 'call_c44', detectCommits: true }, () => post(`${sim.url}/effects/key_commit?delayMs=5`));
    run.end();
    const commit = named(await capture.spans(run.id), 'afterstop.tool.commit')[0]?.attributes;
    expect(commit?.['afterstop.guard.idempotency_key']).toBe(effectsNamed('key_commit')[0]?.idempotencyKey);
  });

  it('switched off, the wrappers are removed', () => {
    setup({ guard: { fence: false, idempotencyKeys: false } });
    expect(httpGuardInstalled()).toBe(false);
    expect((globalThis.fetch as unknown as Record<symbol, unknown>)[Symbol.for('afterstop.guard.wrapped')]).toBeUndefined();
  });
});
