import * as http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { distModule, lastJson, runModule, tempCwd } from '../../../test/helpers/child.js';

/**
 * The guard in a process of its own (the compiled package, default Node settings: an unhandled rejection
 * or an unhandled 'error' event ends the process): a refused request nobody handles does not kill it, and
 * a key is a function of the secret, not only of what the traces show.
 */
let server: http.Server;
let serverUrl: string;
const received: { path: string; key: string | undefined }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ path: req.url ?? '', key: req.headers['idempotency-key'] as string | undefined });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  received.length = 0;
});

const index = (): string => distModule('instrumentation/index.js');
const traces = tempCwd();

describe('fire and forget after Stop', () => {
  it('a dropped fetch promise and a node:http request without an error listener are refused; the process lives on; a caller that awaits or listens still gets the refusal', async () => {
    const r = await runModule(
      `
      import * as http from 'node:http';
      import { setup, startRun, CommitFencedError, shutdown } from ${JSON.stringify(index())};
      setup({ exporter: 'file', tracesDir: process.env.TRACES, guard: { fence: true } });
      const url = process.env.SERVER_URL;
      const run = startRun();
      await run.cancel();
      const out = await run.tool({ name: 'notify' }, async () => {
        void fetch(url + '/forgotten-fetch', { method: 'POST', body: '{}' });
        const forgotten = http.request(url + '/forgotten-http', { method: 'POST' });
        forgotten.end('{}');
        await new Promise((resolve) => forgotten.once('close', resolve));
        const awaited = await fetch(url + '/awaited', { method: 'POST', body: '{}' }).then(() => 'sent', (e) => CommitFencedError.isInstance(e));
        const heard = await new Promise((resolve) => {
          const req = http.request(url + '/heard', { method: 'POST' });
          req.on('error', (e) => resolve(CommitFencedError.isInstance(e)));
          req.end('{}');
        });
        return { awaited, heard };
      });
      run.end();
      await new Promise((resolve) => setImmediate(resolve));
      await shutdown();
      console.log(JSON.stringify({ alive: true, ...out }));
      `,
      { env: { SERVER_URL: serverUrl, TRACES: traces() }, timeoutMs: 30_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(lastJson(r)).toEqual({ alive: true, awaited: true, heard: true });
    expect(received).toEqual([]);
  });
});

describe('a key is not a function of what the traces show', () => {
  const keyIn = async (env: Record<string, string>): Promise<string | undefined> => {
    received.length = 0;
    const r = await runModule(
      `
      import { setup, startRun, shutdown } from ${JSON.stringify(index())};
      setup({ exporter: 'file', tracesDir: process.env.TRACES, guard: { idempotencyKeys: { hosts: ['127.0.0.1'] } } });
      const run = startRun({ conversationId: '3f6c2a9e-8b1d-4e7f-a5c0-9d2b7e1f4a68' });
      await run.tool({ name: 'verify', callId: 'call_Vt8Qm2LxR4kPz9WcY1nB6sJd', arguments: { user: 'u1' } }, () => fetch(process.env.SERVER_URL + '/verify/493027', { method: 'POST', body: '{}' }));
      run.end();
      await shutdown();
      console.log('{}');
      `,
      { env: { SERVER_URL: serverUrl, TRACES: traces(), ...env }, timeoutMs: 30_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    return received[0]?.key;
  };

  it('two processes with the same inputs give two keys without a configured secret, and the same key with one (a replay across processes needs it)', async () => {
    const a = await keyIn({});
    const b = await keyIn({});
    const SECRET = { AFTERSTOP_GUARD_IDEMPOTENCY_SECRET: 'kT3v9QzR7mW2xL8pN4cF6hJ1sD5gB0aY' };
    const c = await keyIn(SECRET);
    const d = await keyIn(SECRET);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b).not.toBe(a);
    expect(d).toBe(c);
    expect([a, b]).not.toContain(c);
  });
});
