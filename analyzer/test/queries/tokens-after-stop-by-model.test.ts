import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** tokens-after-stop-by-model.sql: tokens after Stop and their cost per model, most expensive first, in total and per group. */
describe('tokens-after-stop-by-model', () => {
  it('one row per model name as seen; dated names priced by prefix; unpriced models flagged', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 2000, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.model({ startMs: 200, endMs: 300, model: 'gpt-4o-2024-08-06', input: 1000, output: 100 });
    r.model({ startMs: 200, endMs: 300, model: 'gpt-4o-2024-08-06', input: 1000, output: 100 });
    r.model({ startMs: 200, endMs: 300, model: 'gpt-4o-mini', input: 1000, output: 100 });
    r.model({ startMs: 0, endMs: 500, model: 'mystery-1', output: 50 });
    const other = t.run({ startMs: 0, endMs: 2000, outcome: 'cancelled', service: 'billing' });
    other.cancelRequest(100);
    other.model({ startMs: 200, endMs: 300, model: 'gpt-4o-mini', input: 10, output: 1 });
    const s = await analyzeTraces(t);
    const all = await s.rows('tokens-after-stop-by-model');
    s.close();
    expect(all.filter((m) => !m['total']).map((m) => [m['service'], m['model'], m['input'], m['output']])).toEqual([
      ['billing', 'gpt-4o-mini', 10, 1],
      ['svc', 'gpt-4o-2024-08-06', 2000, 200],
      ['svc', 'gpt-4o-mini', 1000, 100],
      ['svc', 'mystery-1', 0, 40],
    ]);
    const rows = all.filter((m) => m['total']);
    expect(rows.map((m) => [m['model'], m['input'], m['output']])[1]).toEqual(['gpt-4o-mini', 1010, 101]);
    expect(rows.map((m) => [m['model'], m['priced']])).toEqual([
      ['gpt-4o-2024-08-06', true],
      ['gpt-4o-mini', true],
      ['mystery-1', false],
    ]);
    expect(rows[0]!['ghost_tax_usd']).toBeCloseTo(2 * (1000 * 2.5e-6 + 100 * 10e-6), 12);
    expect(rows[1]!['ghost_tax_usd']).toBeCloseTo(1010 * 0.15e-6 + 101 * 0.6e-6, 12);
    expect(rows[2]!['ghost_tax_usd']).toBe(0);
  });

  it('an overriding price table: the exact name beats a prefix', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 2000, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.model({ startMs: 200, endMs: 300, model: 'gpt-4o-2024-08-06', input: 1_000_000, output: 0 });
    const s = await analyzeTraces(t, { prices: { 'gpt-4o': [2.5, 10], 'gpt-4o-2024-08-06': [1, 1], gpt: [100, 100] } });
    expect((await s.rows('tokens-after-stop-by-model')).filter((m) => m['total'])[0]!['ghost_tax_usd']).toBeCloseTo(1, 12);
    s.close();
  });
});
