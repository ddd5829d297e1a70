import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces } from '../../../test/helpers/trace-builder.js';

/** cancel-span-facts.sql: per cancelled run, what its spans say around C (the store's cancel_span_facts, kept at ingest). C = 100 ms. */
describe('cancel-span-facts', () => {
  it('the latest end before C, the work started after it, the latest end of a model in flight at it, and whether afterstop recorded the tools', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 5000, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.model({ startMs: 10, endMs: 1300, model: 'gpt-4o' }); // in flight at C
    r.model({ startMs: 20, endMs: 900, model: 'gpt-4o' }); // in flight at C, ends earlier
    r.model({ startMs: 30, endMs: 60, model: 'gpt-4o' }); // done before C
    r.tool({ name: 'pay', callId: 'a', startMs: 40, endMs: 1500, effect: 'irreversible' }); // the latest end of a call started before C
    r.model({ startMs: 200, endMs: 2500, model: 'gpt-4o' }); // the loop went on: work after C
    r.tool({ name: 'late', callId: 'b', startMs: 300 }); // a start marker after C, never ended
    r.tool({ name: 'refund', callId: 'c', startMs: 400, endMs: 450, toolKind: 'compensate' }); // not loop work
    const foreign = t.run({ startMs: 10000, endMs: 15000, outcome: 'cancelled' });
    foreign.cancelRequest(10100);
    foreign.tool({ name: 'post', startMs: 10050, endMs: 10200, startMarker: false });
    const mine = t.run({ startMs: 20000, endMs: 25000, outcome: 'cancelled' });
    mine.cancelRequest(20100);
    // afterstop's own call that ended before the next export: no start marker, its tracer's span.
    mine.tool({ name: 'lookup', callId: 'd', startMs: 20050, endMs: 20080, startMarker: false, scope: 'afterstop' });
    t.run({ startMs: 30000, endMs: 31000 }).tool({ name: 'x', callId: 'e', startMs: 30010, endMs: 30020 }); // not cancelled: no row
    const a = await analyzeTraces(t);
    const rows = await a.table('cancel_span_facts', 'ORDER BY quiet_end_ns');
    a.close();
    expect(rows.map((f) => [f['run_id'], f['work_after'], f['tool_evidence']])).toEqual([
      [r.spanId, 2, true],
      [foreign.spanId, 0, false],
      [mine.spanId, 0, true],
    ]);
    expect(rows.map((f) => [f['quiet_end_ns'], f['inflight_model_end_ns']])).toEqual([
      [ns(1500), ns(1300)],
      [ns(10200), null],
      [ns(20080), null],
    ]);
    expect(rows[0]!['trace_id']).toBe(r.traceId);
  });

  it('is kept per trace, and goes with its run when the retention forgets it (prune-facts)', async () => {
    const t = traces();
    const r1 = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r1.cancelRequest(100);
    const r2 = t.run({ startMs: 1000, endMs: 1900, outcome: 'cancelled' });
    r2.cancelRequest(1100);
    const a = await analyzeTraces(t);
    expect((await a.table('cancel_span_facts', 'ORDER BY run_id')).map((f) => f['run_id']).sort()).toEqual([r1.spanId, r2.spanId].sort());
    await a.forgetRun(r1);
    expect((await a.table('cancel_span_facts')).map((f) => f['run_id'])).toEqual([r2.spanId]);
    a.close();
  });
});
