import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, traces } from '../../../test/helpers/trace-builder.js';

/** error-span-facts.sql: the ERROR spans of each run that are not the cancellation (the store's error_span_facts). */
describe('error-span-facts', () => {
  it('keeps each ERROR span with what it says; not an OK span, not the cancellation', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c', startMs: 0, endMs: 1000, outcome: 'cancelled' });
    r.span({ name: 'chat gpt-4o', startMs: 0, endMs: 200, status: { code: 'error', message: 'No tool output found for function call k1' } });
    r.span({ name: 'ok step', startMs: 0, endMs: 300 });
    r.model({ startMs: 300, endMs: 400, model: 'gpt-4o', status: 'error', exceptions: [{ type: 'AbortError', message: 'This operation was aborted' }] });
    const a = await analyzeTraces(t);
    const rows = await a.table('error_span_facts');
    a.close();
    expect(rows.map((e) => [e['run_id'], relMs(e['end_ns']), e['status_message']])).toEqual([[r.spanId, 200, 'No tool output found for function call k1']]);
  });

  it("not afterstop's request span whose answer the Stop cut (error.type request_lost, issue 49); a failed answer's is kept", async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 1000, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'send_order', callId: 'c1', startMs: 50, endMs: 200, result: 'cancelled' });
    r.request({ callId: 'c1', startMs: 60, endMs: 150 });
    r.tool({ name: 'send_order', callId: 'c2', startMs: 300, endMs: 400 });
    const failed = r.request({ callId: 'c2', startMs: 310, endMs: 390, status: 503 });
    const a = await analyzeTraces(t);
    const rows = await a.table('error_span_facts');
    a.close();
    expect(rows.map((e) => e['span_id'])).toEqual([failed]);
  });

  it('goes with its run when the retention forgets it (prune-facts)', async () => {
    const t = traces();
    const r1 = t.run({ startMs: 0, endMs: 900 });
    r1.span({ name: 'm1', startMs: 0, endMs: 100, status: { code: 'error', message: 'm1' } });
    const r2 = t.run({ startMs: 1000, endMs: 1900 });
    r2.span({ name: 'm2', startMs: 1000, endMs: 1100, status: { code: 'error', message: 'm2' } });
    const a = await analyzeTraces(t);
    expect((await a.table('error_span_facts', 'ORDER BY status_message')).map((e) => e['status_message'])).toEqual(['m1', 'm2']);
    await a.forgetRun(r1);
    expect((await a.table('error_span_facts')).map((e) => e['status_message'])).toEqual(['m2']);
    a.close();
  });
});
