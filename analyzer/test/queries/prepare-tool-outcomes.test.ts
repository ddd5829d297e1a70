import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** prepare-tool-outcomes.sql: lost, late and repaired per tool call of a cancelled run (report_tool_outcomes). */
const outcomes = async (t: ReturnType<typeof traces>) => {
  const a = await analyzeTraces(t);
  const rows = await a.table('report_tool_outcomes', 'ORDER BY call_id');
  a.close();
  return Object.fromEntries(rows.map((o) => [o['call_id'], [Boolean(o['lost']), Boolean(o['late']), Boolean(o['repaired'])]])) as Record<string, boolean[]>;
};

describe('prepare-tool-outcomes', () => {
  it('lost: never ended, result late/dropped/cancelled, or ended after A; late: ended after A or result late', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c1', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(150);
    r.tool({ name: 'x', callId: 'delivered', startMs: 50, endMs: 140, result: 'delivered' });
    r.tool({ name: 'x', callId: 'after-ack', startMs: 50, endMs: 400, result: 'delivered' });
    r.tool({ name: 'x', callId: 'dropped', startMs: 50, endMs: 140, result: 'dropped' });
    r.tool({ name: 'x', callId: 'cancelled', startMs: 50, endMs: 140, result: 'cancelled', status: 'error', errorType: 'cancelled' });
    r.tool({ name: 'x', callId: 'late', startMs: 50, endMs: 130, result: 'late' });
    r.tool({ name: 'x', callId: 'never', startMs: 50 });
    t.run({ conversation: 'c1', startMs: 1000, endMs: 1900, outcome: 'completed' }).tool({ name: 'x', callId: 'other-run', startMs: 1000 });
    expect(await outcomes(t)).toEqual({
      delivered: [false, false, false],
      'after-ack': [true, true, false],
      dropped: [true, false, false],
      cancelled: [true, false, false],
      late: [true, true, false],
      never: [true, false, false],
    });
  });

  it('without an ack, a call that ended after C with its result delivered is not lost', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 800, result: 'delivered' });
    expect(await outcomes(t)).toEqual({ a: [false, false, false] });
  });

  it('a repair covers only the calls it lists, at or after C, in the same conversation — also from a later run', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c1', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    for (const id of ['a', 'b', 'c', 'd', 'e']) r.tool({ name: 'x', callId: id, startMs: 50 });
    r.repair(90, ['e']); // before C: does not count
    r.repair(100, ['a']); // at C
    t.run({ conversation: 'c1', startMs: 1000, endMs: 1900 }).repair(1000, ['b']);
    t.run({ conversation: 'c2', startMs: 1000, endMs: 1900 }).repair(1000, ['c']);
    const o = await outcomes(t);
    expect(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v[2]]))).toEqual({ a: true, b: true, c: false, d: false, e: false });
  });

  it('without a conversation, only a repair of the run itself counts', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'x', callId: 'a', startMs: 50 });
    r.tool({ name: 'x', callId: 'b', startMs: 50 });
    r.repair(200, ['a']);
    t.run({ startMs: 1000, endMs: 1900 }).repair(1000, ['b']);
    const o = await outcomes(t);
    expect([o['a']![2], o['b']![2]]).toEqual([true, false]);
  });
});
