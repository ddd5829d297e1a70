import { afterEach, describe, expect, it } from 'vitest';
import { ledgerFromJSON, startSimulator } from '../../simulator/index.js';
import type { LedgerJSON, Simulator } from '../../simulator/index.js';
import { postJson, readSseUntil } from './helpers.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('simulator server', () => {
  it('listens on an ephemeral 127.0.0.1 port and answers /health', async () => {
    sim = await startSimulator();
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.url.endsWith(':0')).toBe(false);
    const res = await fetch(`${sim.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('answers unknown routes with 404 JSON', async () => {
    sim = await startSimulator();
    for (const res of [await fetch(`${sim.url}/nope`), await fetch(`${sim.url}/v1/chat/completions`)]) {
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/No route/);
    }
  });

  it('serves the ledger as JSON with decimal-string times, monotonic across requests', async () => {
    sim = await startSimulator({ tokenDelayMs: 2 });
    await postJson(`${sim.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: '[[tokens:2]]' }] });
    await postJson(`${sim.url}/v1/messages`, { model: 'c', max_tokens: 9, messages: [{ role: 'user', content: '[[tokens:2]]' }] });
    await postJson(`${sim.url}/effects/e?delayMs=5`, {});
    const json = (await (await fetch(`${sim.url}/ledger`)).json()) as LedgerJSON;
    expect(json.modelRequests).toHaveLength(2);
    expect(json.effects).toHaveLength(1);
    expect(json.modelRequests[0]!.startNs).toMatch(/^\d{19}$/);
    expect(json.effects[0]!.committedNs).toMatch(/^\d{19}$/);

    const snapshot = ledgerFromJSON(json);
    const [a, b] = snapshot.modelRequests;
    const [e] = snapshot.effects;
    expect(typeof a!.startNs).toBe('bigint');
    expect(a!.startNs).toBe(sim.ledger.modelRequests[0]!.startNs);
    const times = [a!.startNs, a!.endNs, b!.startNs, b!.endNs, e!.receivedNs, e!.committedNs!];
    for (let i = 1; i < times.length; i++) expect(times[i]! >= times[i - 1]!).toBe(true);
  });

  it('close() stops an in-flight stream promptly and records it', async () => {
    sim = await startSimulator({ tokenDelayMs: 5 });
    const res = await postJson(`${sim.url}/v1/chat/completions`, {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: '[[tokens:100000]]' }],
    });
    const reading = readSseUntil(res, () => false).catch(() => 'stream cut');
    await new Promise((r) => setTimeout(r, 30));
    await sim.close();
    expect(await reading).toBe('stream cut');
    // Promptly: close() resolved with the stream cut, its record in the ledger, a sliver of its 100,000 tokens
    // (500 s of them) generated. A close that waited for the stream would not resolve within the test's bound.
    const [rec] = sim.ledger.modelRequests;
    expect(rec).toMatchObject({ error: 'simulator closed', clientClosedEarly: false });
    expect(rec!.outputTokensGenerated).toBeGreaterThan(0);
    expect(rec!.outputTokensGenerated).toBeLessThan(100000);
  });

  it('close() abandons an effect that has not committed yet', async () => {
    sim = await startSimulator();
    const pending = postJson(`${sim.url}/effects/slow?delayMs=10000`, {});
    // Long enough for the service to have the request (30 ms was too short on a loaded machine); it commits at 10 s.
    await new Promise((r) => setTimeout(r, 300));
    await sim.close();
    const res = await pending.catch(() => undefined);
    expect(res === undefined || res.status === 503).toBe(true);
    expect(sim.ledger.effects).toEqual([expect.objectContaining({ name: 'slow', outcome: 'abandoned', committedNs: null })]);
  });

  it('close() also closes idle keep-alive connections and can be called twice', async () => {
    sim = await startSimulator();
    await (await fetch(`${sim.url}/health`)).text(); // leaves a keep-alive socket open
    const started = performance.now();
    await Promise.all([sim.close(), sim.close()]);
    expect(performance.now() - started).toBeLessThan(500);
    await expect(fetch(`${sim.url}/health`)).rejects.toThrow();
  });

  it('uses the configured time to first token', async () => {
    sim = await startSimulator({ tokenDelayMs: 1, firstTokenDelayMs: 120 });
    const started = performance.now();
    const res = await postJson(`${sim.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: '[[tokens:2]]' }] });
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });
});
