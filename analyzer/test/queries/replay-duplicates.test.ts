import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces, type Traces } from '../../../test/helpers/trace-builder.js';

/** replay-duplicates.sql: replay duplicates and replayed conversations per group (of the later commit), METRICS.md §6. */
const run = (t: Traces, service: string, conversation: string, startMs: number, callId: string, key?: string) => {
  const r = t.run({ service, conversation, startMs, endMs: startMs + 900 });
  r.tool({ name: 'charge', callId, startMs: startMs + 10, endMs: startMs + 100, ...(key ? { idempotencyKey: key } : {}) });
  r.commit({ callId, atMs: startMs + 50 });
  return r;
};

describe('replay-duplicates', () => {
  it('counts duplicates and distinct conversations, per group of the run that committed again', async () => {
    const t = traces();
    run(t, 'a', 'thread-1', 0, 'n1', 'order-1');
    run(t, 'b', 'thread-1', 1000, 'n1-replay', 'order-1'); // duplicate, group b
    run(t, 'b', 'thread-1', 2000, 'n1-again', 'order-1'); // duplicate, group b
    run(t, 'a', 'thread-2', 0, 'call_7');
    run(t, 'a', 'thread-2', 1000, 'call_7'); // no key: same tool and call id: duplicate, group a
    run(t, 'a', 'thread-3', 0, 'call_8', 'k');
    run(t, 'a', 'thread-4', 1000, 'call_8', 'k'); // another conversation: not a duplicate
    const s = await analyzeTraces(t);
    const rows = await s.rows('replay-duplicates');
    s.close();
    expect(rows.map((r) => [r['service'], r['total'], r['replay_duplicates'], r['replayed_conversations']])).toEqual([
      ['a', false, 1, 1],
      ['b', false, 2, 1],
      [null, true, 3, 2],
    ]);
  });

  it('only runs in the window: a duplicate committed by a run that starts after it is not counted', async () => {
    const t = traces();
    run(t, 'a', 'thread-1', 0, 'n1', 'order-1');
    run(t, 'a', 'thread-1', 1000, 'n1-replay', 'order-1'); // in the window
    run(t, 'b', 'thread-1', 5000, 'n1-again', 'order-1'); // after it: neither counted nor its group listed
    const s = await analyzeTraces(t, { untilMs: 4000 });
    const rows = await s.rows('replay-duplicates');
    s.close();
    expect(rows.map((r) => [r['service'], r['total'], r['replay_duplicates'], r['replayed_conversations']])).toEqual([
      ['a', false, 1, 1],
      [null, true, 1, 1],
    ]);
  });

  it('several commits inside one tool execution are not replays', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c', startMs: 0, endMs: 900 });
    r.tool({ name: 'post', callId: 'p', startMs: 10, endMs: 500, idempotencyKey: 'k' });
    r.commit({ callId: 'p', atMs: 100 });
    r.commit({ callId: 'p', atMs: 200 });
    const s = await analyzeTraces(t);
    expect(await s.total('replay-duplicates')).toMatchObject({ replay_duplicates: 0, replayed_conversations: 0 });
    s.close();
  });
});

describe('replay-duplicates with the guard’s idempotency keys', () => {
  it('a replay whose request carried the earlier commit’s key is deduplicated, not a duplicate; another key, or none, is a duplicate', async () => {
    const t = traces();
    const keyed = (conversation: string, startMs: number, guardKey: string | undefined) => {
      const r = t.run({ service: 'a', conversation, startMs, endMs: startMs + 900 });
      r.tool({ name: 'charge', callId: 'call_1', startMs: startMs + 10, endMs: startMs + 100 });
      r.commit({ callId: 'call_1', atMs: startMs + 50, ...(guardKey ? { guardKey } : {}) });
    };
    keyed('thread-1', 0, 'key-1');
    keyed('thread-1', 1000, 'key-1'); // the resume's replay, same key: deduplicated
    keyed('thread-2', 0, 'key-2');
    keyed('thread-2', 1000, 'key-other'); // another key: a duplicate
    keyed('thread-3', 0, undefined);
    keyed('thread-3', 1000, undefined); // no key: a duplicate
    const s = await analyzeTraces(t);
    const total = await s.total('replay-duplicates');
    const findings = (await s.rows('findings', { limit: 100n })).filter((f) => f['kind'] === 'replay_duplicate');
    s.close();
    expect(total).toMatchObject({ replay_duplicates: 2, replayed_conversations: 2, replays_deduplicated: 1 });
    expect(findings).toHaveLength(2);
  });
});
