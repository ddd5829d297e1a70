import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces } from '../../../test/helpers/trace-builder.js';

/** explain-runs.sql: the runs an id names — by key, by id within the trace (in every trace that has it), or all of a trace. */
describe('explain-runs', () => {
  it('a run by its id or key, every run of a trace by the trace id (any case), in start order, at most $limit', async () => {
    const t = traces();
    const a = t.run({ conversation: 'c', startMs: 0, endMs: 900, outcome: 'cancelled' });
    a.cancelRequest(100);
    a.ack(130);
    a.settle(200);
    const b = t.run({ traceId: a.traceId, startMs: 1000, endMs: 1500, outcome: 'completed' });
    const other = t.run({ startMs: 5, endMs: 50 });
    const s = await analyzeTraces(t);
    const ids = async (id: string, limit = 10n) => (await s.rows('explain-runs', { id, limit })).map((r) => r['run_id']);
    expect(await ids(a.spanId)).toEqual([a.spanId]);
    expect(await ids(`${a.traceId}:${b.spanId}`)).toEqual([b.spanId]);
    expect(await ids(a.traceId.toUpperCase())).toEqual([a.spanId, b.spanId]);
    expect(await ids(` ${a.traceId} `)).toEqual([a.spanId, b.spanId]);
    expect(await ids(a.traceId, 1n)).toEqual([a.spanId]);
    expect(await ids(other.traceId)).toEqual([other.spanId]);
    expect(await ids('nosuch')).toEqual([]);
    const [row] = await s.rows('explain-runs', { id: a.spanId, limit: 1n });
    s.close();
    expect(row).toMatchObject({
      trace_id: a.traceId,
      local_id: a.spanId,
      conversation_id: 'c',
      outcome: 'cancelled',
      cancelled: true,
      cancel_inferred: false,
      start_ns: ns(0),
      end_ns: ns(900),
      c_ns: ns(100),
      a_ns: ns(130),
      settle_ns: ns(200),
    });
  });

  it('a run id that two traces share gives both runs; a run whose span was never exported has no end', async () => {
    const t = traces();
    const one = t.run({ startMs: 0, endMs: 100, attrs: { 'afterstop.run.id': 'shared' } });
    one.span({ name: 'x', startMs: 1, attrs: { 'afterstop.run.id': 'shared' } });
    const two = t.run({ startMs: 200, exported: false, stamp: false });
    two.span({ name: 'chat gpt-4o', startMs: 210, endMs: 220, attrs: { 'afterstop.run.id': 'shared', 'gen_ai.operation.name': 'chat' } });
    const s = await analyzeTraces(t);
    const rows = await s.rows('explain-runs', { id: 'shared', limit: 10n });
    s.close();
    expect(rows.map((r) => [r['trace_id'], r['local_id'], r['end_ns'] === null])).toEqual([
      [one.traceId, 'shared', false],
      [two.traceId, 'shared', true],
    ]);
  });
});
