import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces, type Traces } from '../../../test/helpers/trace-builder.js';

/** replay-facts.sql: commits of an effect already committed by another execution (the store's replay_facts), METRICS.md §6. */
const replays = async (t: Traces) => {
  const a = await analyzeTraces(t);
  const rows = await a.table('replay_facts', 'ORDER BY start_ns');
  a.close();
  return rows;
};
const commitIn = (t: Traces, conversation: string, startMs: number, commits: { callId: string; tool?: string; key?: string; atMs: number }[]) => {
  const r = t.run({ conversation, startMs, endMs: startMs + 900, outcome: 'completed' });
  for (const c of commits) {
    r.tool({ name: c.tool ?? 'charge_card', callId: c.callId, startMs: c.atMs - 10, endMs: c.atMs + 10, effect: 'irreversible', ...(c.key ? { idempotencyKey: c.key } : {}) });
    r.commit({ callId: c.callId, atMs: c.atMs });
  }
  return r;
};

describe('replay-facts', () => {
  it('the same idempotency key committed again in a later run of the conversation is a duplicate', async () => {
    const t = traces();
    const first = commitIn(t, 'thread-7', 0, [{ callId: 'n1', key: 'order-42', atMs: 300 }]);
    const second = commitIn(t, 'thread-7', 2000, [{ callId: 'n1-replay', key: 'order-42', atMs: 2300 }]);
    commitIn(t, 'thread-8', 4000, [{ callId: 'n1', key: 'order-42', atMs: 4300 }]); // another conversation
    const rows = await replays(t);
    expect(rows.map((d) => [d['run_id'], d['first_run_id'], d['effect_key'], d['scope'], d['tool']])).toEqual([[second.spanId, first.spanId, 'order-42', 'thread-7', 'charge_card']]);
  });

  it('without a key: tool name plus tool call id, across runs (a resume replays the same call id)', async () => {
    const t = traces();
    commitIn(t, 'c', 0, [
      { callId: 'call_1', atMs: 300 },
      { callId: 'call_2', tool: 'send_email', atMs: 400 },
    ]);
    const resumed = commitIn(t, 'c', 2000, [
      { callId: 'call_1', atMs: 2300 },
      { callId: 'call_2', tool: 'other_tool', atMs: 2400 },
    ]);
    const rows = await replays(t);
    expect(rows.map((d) => [d['run_id'], d['effect_key']])).toEqual([[resumed.spanId, 'charge_card/call_1']]);
  });

  it('several commits inside one tool execution are not replays; another call id in the same run is', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c', startMs: 0, endMs: 900 });
    r.tool({ name: 'post', callId: 'p1', startMs: 10, endMs: 500, idempotencyKey: 'k' });
    r.commit({ callId: 'p1', atMs: 100 });
    r.commit({ callId: 'p1', atMs: 200 });
    r.tool({ name: 'post', callId: 'p2', startMs: 510, endMs: 700, idempotencyKey: 'k' });
    const dup = r.commit({ callId: 'p2', atMs: 600 });
    const rows = await replays(t);
    expect(rows.map((d) => d['span_id'])).toEqual([dup]);
  });

  it('a third commit is a second duplicate; without a conversation the trace is the scope', async () => {
    const t = traces();
    const a = t.run({ startMs: 0, endMs: 900 });
    for (const [i, at] of [
      [1, 100],
      [2, 200],
      [3, 300],
    ] as const) {
      a.tool({ name: 'pay', callId: `x${i}`, startMs: at - 5, endMs: at + 5, idempotencyKey: 'k' });
      a.commit({ callId: `x${i}`, atMs: at });
    }
    const b = t.run({ startMs: 0, endMs: 900 });
    b.tool({ name: 'pay', callId: 'y', startMs: 400, endMs: 410, idempotencyKey: 'k' });
    b.commit({ callId: 'y', atMs: 405 });
    const rows = await replays(t);
    expect(rows.map((d) => [d['tool_call_id'], d['scope'], d['first_run_id']])).toEqual([
      ['x2', `trace:${a.traceId}`, a.spanId],
      ['x3', `trace:${a.traceId}`, a.spanId],
    ]);
  });
});
