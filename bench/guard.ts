import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { setup, shutdown, startRun } from 'afterstop';
import { measureOnOff, type OnOff } from './on-off.js';

/**
 * What the guard (docs/guard.md) costs a tool call that makes a side effect:
 * a tool whose body POSTs to a local HTTP service (keep-alive), through fetch
 * and through node:http, with the guard on (the fence for every tool, an
 * idempotency key for the host: the wrappers, the key derived and added) and
 * off (the wrappers removed), rounds interleaved in one process. The run is
 * never stopped: the fence lets every request through. The service answers
 * at once (loopback: the guard's cost laid bare, some 20 to 40 µs a request,
 * most of it the key's HMAC-SHA256, the arguments' digest and bookkeeping) or after `replyDelayMs` (a fast
 * real service: what a tool sees).
 */
export interface GuardBench {
  iterations: number;
  rounds: number;
  /** How long the service took to answer, ms. */
  replyDelayMs: number;
  fetch: OnOff;
  http: OnOff;
  /** Requests the service saw with an Idempotency-Key while the guard was on, of all it saw then (a check that it worked). */
  keyed: { withKey: number; whileOn: number };
}

export async function benchGuard(iterations = 1_000, rounds = 11, replyDelayMs = 0): Promise<GuardBench> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-guard-'));
  let guardOn = false;
  const keyed = { withKey: 0, whileOn: 0 };
  const server = http.createServer((req, res) => {
    if (guardOn) {
      keyed.whileOn++;
      if (req.headers['idempotency-key'] !== undefined) keyed.withKey++;
    }
    req.resume();
    req.on('end', () => (replyDelayMs > 0 ? setTimeout(() => res.end('{"ok":true}'), replyDelayMs) : res.end('{"ok":true}')));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/effects/send`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  setup({ tracesDir: dir, serviceName: 'bench', maxQueueSize: 8192 });
  const on = (): void => {
    setup({ guard: { fence: true, idempotencyKeys: { hosts: ['127.0.0.1'] } } });
    guardOn = true;
  };
  const off = (): void => {
    setup({ guard: { fence: false, idempotencyKeys: false } });
    guardOn = false;
  };
  const run = startRun({ agentName: 'bench', conversationId: 'bench' });
  const viaFetch = (i: number): Promise<number> =>
    run.tool({ name: 'send', callId: `f_${i}`, arguments: { to: 'a' } }, async () => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"to":"a"}' })).status);
  const viaHttp = (i: number): Promise<number> =>
    run.tool(
      { name: 'send', callId: `h_${i}`, arguments: { to: 'a' } },
      () =>
        new Promise<number>((resolve, reject) => {
          const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end('{"to":"a"}');
        }),
    );
  try {
    const viaFetchResult = await measureOnOff(on, off, viaFetch, iterations, rounds);
    const viaHttpResult = await measureOnOff(on, off, viaHttp, iterations, rounds);
    return { iterations, rounds, replyDelayMs, fetch: viaFetchResult, http: viaHttpResult, keyed };
  } finally {
    off();
    run.end();
    agent.destroy();
    await new Promise((resolve) => server.close(resolve));
    await shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
