import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@afterstop/analyzer/simulator';
import { type ChildResult, lastJson, runFile } from '../helpers/child.js';

/** docs/simulator.md's example agent, run as its reader runs it, against a simulator this test started. */
const example = fileURLToPath(new URL('../../docs/examples/simulator-agent.mjs', import.meta.url));

const runExample = (env: Record<string, string>): Promise<ChildResult> => runFile(example, [], { env, timeoutMs: 60_000 });

describe('docs/examples/simulator-agent.mjs', () => {
  let sim: Simulator;
  let out: ChildResult;
  beforeAll(async () => {
    sim = await startSimulator({ tokenDelayMs: 5 });
    out = await runExample({ SIMULATOR_URL: sim.url });
    await sim.idle();
  });
  afterAll(() => sim?.close());

  it('runs to its end: both turns stopped by the user', () => {
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('turn 1: stopped (Stop pressed while send_email ran)');
    expect(out.stdout).toContain('turn 2: stopped after 10 tokens');
  });

  it('the ledger: a lookup, then the e-mail call ([[step]]), then a stream stopped after 10 tokens', () => {
    const requests = sim.ledger.modelRequests;
    expect(requests.map((r) => [r.api, r.status, r.stream, r.toolCalls.map((t) => t.name)])).toEqual([
      ['openai-chat', 200, true, ['lookup_order']],
      ['openai-chat', 200, true, ['send_email']],
      ['openai-chat', 200, true, []],
    ]);
    expect(requests[1]!.toolResultIds).toEqual([requests[0]!.toolCalls[0]!.id]);
    const stopped = requests[2]!;
    expect(stopped.clientClosedEarly).toBe(true);
    expect(requests.slice(0, 2).map((r) => r.clientClosedEarly)).toEqual([false, false]);
    // The client stopped at its 10th token: the ones in flight may have been sent, and the token being produced when it left is billed, not sent.
    expect(stopped.outputTokensSent).toBeGreaterThanOrEqual(10);
    expect(stopped.outputTokensSent).toBeLessThan(200);
    expect(stopped.outputTokensGenerated - stopped.outputTokensSent).toBeGreaterThanOrEqual(0);
    expect(stopped.outputTokensGenerated - stopped.outputTokensSent).toBeLessThanOrEqual(1);
    expect(stopped.outputTokensSentNs).toHaveLength(stopped.outputTokensSent);
    // [[ttft:100]] then [[delay:30]]: the first token no sooner than 100 ms after the request, the next ones 30 ms apart at least
    expect(Number(stopped.outputTokensSentNs[0]! - stopped.startNs) / 1e6).toBeGreaterThanOrEqual(99);
    expect(Number(stopped.outputTokensSentNs[9]! - stopped.outputTokensSentNs[0]!) / 1e6).toBeGreaterThanOrEqual(9 * 29);
  });

  it('the ledger: the e-mail committed after Stop, once, with its key; the example printed the same', () => {
    expect(sim.ledger.effects).toHaveLength(1);
    const email = sim.ledger.effects[0]!;
    expect(email).toMatchObject({ name: 'send_email', outcome: 'committed', idempotencyKey: `mail:${sim.ledger.modelRequests[1]!.toolCalls[0]!.id}` });
    const facts = lastJson<{ stopNs: string; effects: { committedNs: string }[]; requests: { sent: number }[] }>(out);
    expect(email.committedNs! - BigInt(facts.stopNs)).toBeGreaterThan(0n);
    // delayMs=300: the service worked 300 ms after it received the request
    expect(Number(email.committedNs! - email.receivedNs) / 1e6).toBeGreaterThanOrEqual(299);
    expect(facts.effects[0]!.committedNs).toBe(String(email.committedNs));
    expect(facts.requests.map((r) => r.sent)).toEqual(sim.ledger.modelRequests.map((r) => r.outputTokensSent));
    expect(out.stdout).toMatch(/ledger: send_email committed \d+ ms after Stop/);
  });

  it('starts its own simulator when given none, and reads the same facts from it', async () => {
    const own = await runExample({ SIMULATOR_URL: '' });
    expect(own.code, own.stderr).toBe(0);
    const facts = lastJson<{ outcomes: string[]; requests: { toolCalls: string[]; clientClosedEarly: boolean }[]; effects: { name: string; outcome: string }[] }>(own);
    expect(facts.outcomes).toEqual(['stopped', 'stopped']);
    expect(facts.requests.map((r) => [r.toolCalls, r.clientClosedEarly])).toEqual([
      [['lookup_order'], false],
      [['send_email'], false],
      [[], true],
    ]);
    expect(facts.effects.map((e) => [e.name, e.outcome])).toEqual([['send_email', 'committed']]);
  });
});
