import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces } from '../../../test/helpers/trace-builder.js';

/** tool-call-facts.sql: one row per tool call of a cancelled run (the store's tool_call_facts, kept at ingest), from its start marker and/or execute_tool span, with its run's group, conversation, start, C and A. */
describe('tool-call-facts', () => {
  it('merges the start marker and the span of a call; a call that never ended has no span', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'send_email', callId: 'c1', startMs: 50, endMs: 400, result: 'late', effect: 'irreversible' });
    r.tool({ name: 'fetch', callId: 'c2', startMs: 60 });
    const a = await analyzeTraces(t);
    const [c1, c2] = await a.table('tool_call_facts', 'ORDER BY call_id');
    expect(c1).toMatchObject({ run_id: r.spanId, call_id: 'c1', tool_name: 'send_email', has_span: true, result: 'late', effect: 'irreversible', trace_id: r.traceId });
    expect([c1!['start_ns'], c1!['end_ns']]).toEqual([ns(50), ns(400)]);
    expect(c2).toMatchObject({ call_id: 'c2', tool_name: 'fetch', has_span: false, end_ns: null, result: null, effect: 'unknown' });
    a.close();
  });

  it('keys a call without a tool call id by its span id; the same call id in two runs is two calls', async () => {
    const t = traces();
    const r1 = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    const anonymous = r1.tool({ name: 'x', startMs: 10, endMs: 20, startMarker: false });
    r1.tool({ name: 'y', callId: 'same', startMs: 30, endMs: 40 });
    const r2 = t.run({ startMs: 1000, endMs: 1900, outcome: 'cancelled' });
    r2.tool({ name: 'y', callId: 'same', startMs: 1030, endMs: 1040 });
    const a = await analyzeTraces(t);
    const rows = await a.table('tool_call_facts', 'ORDER BY start_ns');
    expect(rows.map((c) => [c['run_id'], c['call_id']])).toEqual([
      [r1.spanId, anonymous],
      [r1.spanId, 'same'],
      [r2.spanId, 'same'],
    ]);
    a.close();
  });

  it('is kept per trace: a run’s calls go when its trace is read again (recomputed), and with its run when the retention forgets it (prune-facts)', async () => {
    const t = traces();
    const r1 = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r1.tool({ name: 'a', callId: 'c1', startMs: 10, endMs: 20 });
    const r2 = t.run({ startMs: 1000, endMs: 1900, outcome: 'cancelled' });
    r2.tool({ name: 'b', callId: 'c2', startMs: 1010, endMs: 1020 });
    const a = await analyzeTraces(t);
    expect((await a.table('tool_call_facts', 'ORDER BY call_id')).map((c) => c['call_id'])).toEqual(['c1', 'c2']);
    await a.forgetRun(r1);
    expect((await a.table('tool_call_facts')).map((c) => c['call_id'])).toEqual(['c2']);
    a.close();
  });

  it('keeps only the calls of cancelled runs, each with its run’s group, conversation, start, C and A', async () => {
    const t = traces();
    const stopped = t.run({ service: 's', agent: 'support', framework: 'manual', conversation: 'conv', startMs: 100, endMs: 900, outcome: 'cancelled' });
    stopped.cancelRequest(300);
    stopped.ack(350);
    stopped.tool({ name: 'send_email', callId: 'c1', startMs: 200, endMs: 400 });
    t.run({ conversation: 'conv', startMs: 1000, endMs: 1900, outcome: 'completed' }).tool({ name: 'lookup', callId: 'c2', startMs: 1010, endMs: 1020 });
    const a = await analyzeTraces(t);
    const rows = await a.table('tool_call_facts');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ call_id: 'c1', service: 's', agent: 'support', framework: 'manual', conversation_id: 'conv' });
    expect([rows[0]!['run_start_ns'], rows[0]!['c_ns'], rows[0]!['a_ns']]).toEqual([ns(100), ns(300), ns(350)]);
    a.close();
  });
});
