import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, traces } from '../../../test/helpers/trace-builder.js';

/** repair-facts.sql: one row per tool call id a history repair lists, with the repair's conversation (the store's repair_facts). */
describe('repair-facts', () => {
  it("each listed id is a row; the conversation is the span's, else its run's, else none", async () => {
    const t = traces();
    const c = t.run({ conversation: 'c1', startMs: 0, endMs: 1000 });
    c.repair(100, ['a', 'b']);
    const other = t.run({ startMs: 0, endMs: 1000 });
    other.marker('afterstop.history.repair', 200, { 'afterstop.repair.tool_call_ids': ['z'], 'gen_ai.conversation.id': 'c9' });
    const alone = t.run({ startMs: 0, endMs: 1000 });
    alone.repair(300, ['d']);
    const a = await analyzeTraces(t);
    const rows = await a.table('repair_facts', 'ORDER BY start_ns, call_id');
    a.close();
    expect(rows.map((p) => [p['run_id'], relMs(p['start_ns']), p['conversation_id'], p['call_id']])).toEqual([
      [c.spanId, 100, 'c1', 'a'],
      [c.spanId, 100, 'c1', 'b'],
      [other.spanId, 200, 'c9', 'z'],
      [alone.spanId, 300, null, 'd'],
    ]);
  });

  it('goes with its run when the retention forgets it (prune-facts)', async () => {
    const t = traces();
    const r1 = t.run({ startMs: 0, endMs: 900 });
    r1.repair(100, ['m1']);
    const r2 = t.run({ startMs: 1000, endMs: 1900 });
    r2.repair(1100, ['m2']);
    const a = await analyzeTraces(t);
    expect((await a.table('repair_facts', 'ORDER BY call_id')).map((m) => m['call_id'])).toEqual(['m1', 'm2']);
    await a.forgetRun(r1);
    expect((await a.table('repair_facts')).map((m) => m['call_id'])).toEqual(['m2']);
    a.close();
  });
});
