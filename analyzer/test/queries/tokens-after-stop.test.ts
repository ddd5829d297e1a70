import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces, type Traces } from '../../../test/helpers/trace-builder.js';

/** tokens-after-stop.sql: tokens after Stop and the ghost tax per group and in total, METRICS.md §4, §10. */
const cancelledRun = (t: Traces, service: string, startMs = 0) => {
  const r = t.run({ service, startMs, endMs: startMs + 2000, outcome: 'cancelled' });
  r.cancelRequest(startMs + 100);
  return r;
};
const pick = (r: Record<string, unknown>) => [r['input'], r['output'], r['observed_calls'], r['estimated_calls'], r['calls_without_usage'], r['unpriced_calls'], r['calls_started_after_stop']];

describe('tokens-after-stop', () => {
  it('sums the three cases per group; the total is their sum; cost at the model’s prices', async () => {
    const t = traces();
    const a = cancelledRun(t, 'a');
    a.model({ startMs: 0, endMs: 500, model: 'gpt-4o', input: 10, output: 40, ttfcMs: 50 }); // estimated 35
    a.model({ startMs: 0, endMs: 500, model: 'gpt-4o', input: 10, output: 40, afterCancel: 7 }); // observed 7
    a.model({ startMs: 200, endMs: 400, model: 'gpt-4o', input: 1000, output: 100 }); // observed all
    a.model({ startMs: 300, endMs: 400, model: 'gpt-4o' }); // after C, no usage
    a.model({ startMs: 0, endMs: 500, model: 'gpt-4o', input: 10 }); // in flight, no output
    const b = cancelledRun(t, 'b');
    b.model({ startMs: 0, endMs: 500, model: 'gpt-4o-mini', output: 50 }); // 50 × 400/500 = 40
    t.run({ service: 'c', startMs: 0, endMs: 900 }).model({ startMs: 0, endMs: 500, model: 'gpt-4o', output: 999 });
    const s = await analyzeTraces(t);
    const rows = await s.rows('tokens-after-stop');
    s.close();
    expect(rows.map((r) => [r['service'], ...pick(r)])).toEqual([
      ['a', 1000, 142, 2, 1, 2, 0, 2],
      ['b', 0, 40, 0, 1, 0, 0, 0],
      ['c', 0, 0, 0, 0, 0, 0, 0],
      [null, 1000, 182, 2, 2, 2, 0, 2],
    ]);
    const tax = rows.map((r) => r['ghost_tax_usd'] as number);
    expect(tax[0]).toBeCloseTo(1000 * 2.5e-6 + 142 * 10e-6, 12);
    expect(tax[1]).toBeCloseTo(40 * 0.6e-6, 12);
    expect(tax[3]).toBeCloseTo(tax[0]! + tax[1]!, 12);
  });

  it('an unpriced model: counted in unpriced_calls, costs nothing; prefix matching prices dated names', async () => {
    const t = traces();
    const r = cancelledRun(t, 'a');
    r.model({ startMs: 200, endMs: 300, model: 'llama-3.1-70b', input: 100, output: 10 });
    r.model({ startMs: 200, endMs: 300, model: 'gpt-4o-2024-08-06', input: 100, output: 10 });
    const s = await analyzeTraces(t);
    const total = await s.total('tokens-after-stop');
    s.close();
    expect(pick(total)).toEqual([200, 20, 2, 0, 0, 1, 2]);
    // The unpriced call's tokens, apart: billed after Stop, missing from the ghost tax.
    expect([total['unpriced_input'], total['unpriced_output']]).toEqual([100, 10]);
    expect(total['ghost_tax_usd']).toBeCloseTo(100 * 2.5e-6 + 10 * 10e-6, 12);
  });

  it('only runs in the window; none: zeros', async () => {
    const t = traces();
    cancelledRun(t, 'a', 5000).model({ startMs: 5200, endMs: 5300, model: 'gpt-4o', input: 100, output: 10 });
    const s = await analyzeTraces(t, { untilMs: 5000 });
    expect(await s.rows('tokens-after-stop')).toEqual([
      {
        service: null,
        agent: null,
        framework: null,
        total: true,
        input: 0,
        output: 0,
        observed_calls: 0,
        estimated_calls: 0,
        calls_without_usage: 0,
        unpriced_calls: 0,
        unpriced_input: 0,
        unpriced_output: 0,
        calls_started_after_stop: 0,
        ghost_tax_usd: 0,
      },
    ]);
    s.close();
  });
});
