import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, traces } from '../../../test/helpers/trace-builder.js';

/** commit-facts.sql: the commits of each run, with their scope and the effect they commit (the store's commit_facts). */
describe('commit-facts', () => {
  it('the effect is the idempotency key, else tool name / call id; the scope the conversation, else the trace', async () => {
    const t = traces();
    const c = t.run({ conversation: 'c', startMs: 0, endMs: 1000 });
    c.tool({ name: 'charge_card', callId: 'k1', startMs: 90, endMs: 110, effect: 'irreversible', idempotencyKey: 'order-42' });
    c.commit({ callId: 'k1', atMs: 100 });
    c.tool({ name: 'send_email', callId: 'm1', startMs: 190, endMs: 210, effect: 'irreversible' });
    c.commit({ callId: 'm1', atMs: 200 });
    const alone = t.run({ startMs: 0, endMs: 1000 });
    alone.tool({ name: 'send_email', callId: 'm2', startMs: 290, endMs: 310, effect: 'irreversible' });
    alone.commit({ callId: 'm2', atMs: 300, noCallId: true });
    const a = await analyzeTraces(t);
    const rows = await a.table('commit_facts', 'ORDER BY start_ns');
    a.close();
    expect(rows.map((m) => [m['tool'], m['tool_call_id'], m['effect_key'], m['scope'], m['run_id'], relMs(m['start_ns'])])).toEqual([
      ['charge_card', 'k1', 'order-42', 'c', c.spanId, 100],
      ['send_email', 'm1', 'send_email/m1', 'c', c.spanId, 200],
      // Without a call id, the commit's own span id stands in for it.
      ['send_email', null, `send_email/${rows[2]!['span_id']}`, `trace:${alone.traceId}`, alone.spanId, 300],
    ]);
  });
});
