import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nowNs, startSimulator } from '../../simulator/index.js';
import type { Simulator } from '../../simulator/index.js';
import { ignoreAbort, postJson, waitFor } from './helpers.js';

let sim: Simulator;
beforeEach(async () => {
  sim = await startSimulator({ tokenDelayMs: 5 });
});
afterEach(async () => {
  await sim.close();
});

describe('effects', () => {
  it('commits after the delay and answers with the effect id', async () => {
    const res = await postJson(`${sim.url}/effects/send_email?delayMs=40`, { to: 'a@b.c' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ effect_id: 'eff_1', committed: true });
    const [e] = sim.ledger.effects;
    expect(e).toMatchObject({ id: 'eff_1', name: 'send_email', idempotencyKey: null, outcome: 'committed', clientClosedBeforeCommit: false });
    expect(e!.committedNs! - e!.receivedNs).toBeGreaterThanOrEqual(40_000_000n);
  });

  it('replyDelayMs holds the answer back after the commit: the effect is real before its receipt is sent', async () => {
    const res = await postJson(`${sim.url}/effects/send_email?delayMs=10&replyDelayMs=80`, { to: 'a@b.c' });
    const answeredNs = nowNs();
    expect(res.status).toBe(200);
    const [e] = sim.ledger.effects;
    expect(e).toMatchObject({ outcome: 'committed' });
    expect(answeredNs - e!.committedNs!).toBeGreaterThanOrEqual(80_000_000n);
    const bad = await postJson(`${sim.url}/effects/x?replyDelayMs=-1`, {});
    expect(bad.status).toBe(400);
  });

  it('still commits after the client aborted (ghost effect)', async () => {
    const controller = new AbortController();
    const pending = postJson(`${sim.url}/effects/charge_card?delayMs=150`, { amount: 5 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await ignoreAbort(pending);
    const abortedNs = nowNs();
    expect(sim.ledger.effects).toHaveLength(0); // not committed yet when the client gave up
    await waitFor(() => sim.ledger.effects.length === 1);
    const [e] = sim.ledger.effects;
    expect(e).toMatchObject({ name: 'charge_card', outcome: 'committed', clientClosedBeforeCommit: true });
    expect(e!.committedNs).not.toBeNull();
    expect(e!.committedNs!).toBeGreaterThan(abortedNs);
  });

  it('abandons instead of committing with abandonOnDisconnect=1', async () => {
    const controller = new AbortController();
    const pending = postJson(`${sim.url}/effects/deploy?delayMs=100&abandonOnDisconnect=1`, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await ignoreAbort(pending);
    await waitFor(() => sim.ledger.effects.length === 1);
    await new Promise((r) => setTimeout(r, 120)); // past the commit time: still nothing committed
    expect(sim.ledger.effects).toHaveLength(1);
    expect(sim.ledger.effects[0]).toMatchObject({ name: 'deploy', outcome: 'abandoned', committedNs: null, clientClosedBeforeCommit: true });
  });

  it('commits normally with abandonOnDisconnect=1 when the client stays', async () => {
    const res = await postJson(`${sim.url}/effects/deploy?delayMs=10&abandonOnDisconnect=1`, {});
    expect(res.status).toBe(200);
    expect(sim.ledger.effects[0]!.outcome).toBe('committed');
  });

  it('deduplicates a repeated Idempotency-Key without committing again', async () => {
    const headers = { 'Idempotency-Key': 'pay-123' };
    const first = (await (await postJson(`${sim.url}/effects/pay?delayMs=10`, { n: 1 }, { headers })).json()) as Record<string, unknown>;
    const second = await postJson(`${sim.url}/effects/pay?delayMs=10`, { n: 1 }, { headers });
    expect(second.status).toBe(200);
    expect(((await second.json()) as Record<string, unknown>).effect_id).toBe(first.effect_id);
    expect(sim.ledger.effects.map((e) => e.outcome)).toEqual(['committed', 'deduplicated']);
    expect(sim.ledger.effects[1]).toMatchObject({ id: first.effect_id, idempotencyKey: 'pay-123', committedNs: null });
  });

  it('commits once when two requests with the same key race', async () => {
    const headers = { 'Idempotency-Key': 'race' };
    const [a, b] = await Promise.all([postJson(`${sim.url}/effects/pay?delayMs=30`, {}, { headers }), postJson(`${sim.url}/effects/pay?delayMs=30`, {}, { headers })]);
    const ids = [((await a.json()) as { effect_id: string }).effect_id, ((await b.json()) as { effect_id: string }).effect_id];
    expect(ids[0]).toBe(ids[1]);
    expect(sim.ledger.effects.filter((e) => e.outcome === 'committed')).toHaveLength(1);
    expect(sim.ledger.effects.filter((e) => e.outcome === 'deduplicated')).toHaveLength(1);
  });

  it('lets a key whose first attempt was abandoned commit on retry', async () => {
    const headers = { 'Idempotency-Key': 'retry-me' };
    const controller = new AbortController();
    const pending = postJson(`${sim.url}/effects/pay?delayMs=100&abandonOnDisconnect=1`, {}, { headers, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await ignoreAbort(pending);
    await waitFor(() => sim.ledger.effects.length === 1);
    const retry = await postJson(`${sim.url}/effects/pay?delayMs=10`, {}, { headers });
    expect(retry.status).toBe(200);
    expect(sim.ledger.effects.map((e) => e.outcome)).toEqual(['abandoned', 'committed']);
  });

  it('conflictInProgress: a request whose key another still holds is answered 409 at once and recorded as a conflict; after the first, the key is deduplicated', async () => {
    const headers = { 'Idempotency-Key': 'in-progress' };
    // The first commits at once and holds its answer back 300 ms: its key is in progress until then.
    const first = postJson(`${sim.url}/effects/pay?delayMs=0&replyDelayMs=300&conflictInProgress=1`, {}, { headers });
    await waitFor(() => sim.ledger.effects.some((e) => e.outcome === 'committed'));
    const during = await postJson(`${sim.url}/effects/pay?conflictInProgress=1`, {}, { headers });
    expect(during.status).toBe(409);
    expect((await first).status).toBe(200);
    const after = await postJson(`${sim.url}/effects/pay?conflictInProgress=1`, {}, { headers });
    expect(after.status).toBe(200);
    expect(sim.ledger.effects.map((e) => e.outcome)).toEqual(['committed', 'conflict', 'deduplicated']);
  });

  it('rejects a malformed body or delay with 400', async () => {
    const bad = await fetch(`${sim.url}/effects/x`, { method: 'POST', body: '{nope' });
    expect(bad.status).toBe(400);
    const badDelay = await postJson(`${sim.url}/effects/x?delayMs=-5`, {});
    expect(badDelay.status).toBe(400);
    expect(sim.ledger.effects).toHaveLength(0);
  });
});
