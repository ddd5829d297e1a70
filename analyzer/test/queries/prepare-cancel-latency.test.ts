import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** prepare-cancel-latency.sql: ack and settle latency per cancelled run in the window (METRICS.md §1). */
describe('prepare-cancel-latency', () => {
  it('ack = A − C, settle = S − C (the settle marker, else the last call in flight at C); nothing for a run not cancelled', async () => {
    const t = traces();
    const a = t.run({ startMs: 0, endMs: 5000, outcome: 'cancelled' });
    a.cancelRequest(100);
    a.ack(130);
    a.settle(900);
    const b = t.run({ startMs: 0, endMs: 5000, outcome: 'cancelled' });
    b.cancelRequest(100);
    b.model({ startMs: 0, endMs: 700, model: 'gpt-4o' });
    b.model({ startMs: 200, endMs: 3000, model: 'gpt-4o' }); // started after C: not in S
    const c = t.run({ startMs: 0, endMs: 50 });
    const s = await analyzeTraces(t);
    const rows = await s.table('report_cancel_latency', 'ORDER BY run_id');
    s.close();
    const of = (id: string) => rows.find((r) => r['run_id'] === id)!;
    expect([of(a.spanId)['ack_ms'], of(a.spanId)['settle_ms']]).toEqual([30, 800]);
    expect([of(b.spanId)['ack_ms'], of(b.spanId)['settle_ms']]).toEqual([null, 600]);
    // A run not cancelled has no latency: it is not a row (cancel-latency.sql gives its group its row, with zeros).
    expect(rows.map((r) => r['run_id'])).not.toContain(c.spanId);
    expect(rows).toHaveLength(2);
  });
});
