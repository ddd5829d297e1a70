import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces, type Run } from '../../../test/helpers/trace-builder.js';

/** prepare-tokens.sql: tokens after C per model call of a cancelled run (report_tokens), METRICS.md §4. */
const tokens = async (build: (r: Run) => void, o = {}) => {
  const t = traces();
  const r = t.run({ startMs: 0, endMs: 2000, outcome: 'cancelled' });
  r.cancelRequest(100);
  build(r);
  const a = await analyzeTraces(t, o);
  const rows = await a.table('report_tokens', 'ORDER BY span_id');
  a.close();
  return rows;
};
const figures = (rows: Record<string, unknown>[]) => rows.map((x) => [x['how'], x['input_after'], x['output_after']]);

describe('prepare-tokens', () => {
  it('a call that started at or after C: all of its tokens, observed; without usage, the tokens the client counted after C; with neither: unknown', async () => {
    const rows = await tokens((r) => {
      r.model({ startMs: 100, endMs: 300, model: 'gpt-4o', input: 100, output: 20 });
      r.model({ startMs: 200, endMs: 300, model: 'gpt-4o' });
      r.model({ startMs: 200, endMs: 300, model: 'gpt-4o', afterCancel: 60 });
    });
    expect(figures(rows)).toEqual([
      ['observed', 100, 20],
      ['unknown', 0, 0],
      ['observed', 0, 60],
    ]);
  });

  it('case 1: output_tokens_after_cancel when present (observed), no input', async () => {
    expect(figures(await tokens((r) => r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', input: 10, output: 40, afterCancel: 7 })))).toEqual([['observed', 0, 7]]);
  });

  it('case 2: linear from s (no time to first chunk) or from f, rounded down; 0 when e ≤ f; all when f > C', async () => {
    const rows = await tokens((r) => {
      r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', output: 40 }); // 40 × 400/500 = 32
      r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', output: 40, ttfcMs: 50 }); // 40 × 400/450 = 35.6 → 35
      r.model({ startMs: 0, endMs: 300, model: 'gpt-4o', output: 10 }); // 10 × 200/300 = 6.7 → 6
      r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', output: 40, ttfcMs: 200 }); // f after C: 40
      r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', output: 40, ttfcMs: 600 }); // e ≤ f: 0
    });
    expect(figures(rows)).toEqual([
      ['estimated', 0, 32],
      ['estimated', 0, 35],
      ['estimated', 0, 6],
      ['estimated', 0, 40],
      ['estimated', 0, 0],
    ]);
  });

  it('case 3: in flight at C without output tokens: unknown; a call that ended at or before C: no row', async () => {
    const rows = await tokens((r) => {
      r.model({ startMs: 0, endMs: 500, model: 'gpt-4o', input: 10 });
      r.model({ startMs: 0, endMs: 100, model: 'gpt-4o', input: 10, output: 40 });
      r.model({ startMs: 0, endMs: 50, model: 'gpt-4o', input: 10, output: 40 });
    });
    expect(figures(rows)).toEqual([['unknown', 0, 0]]);
  });

  it('prices the exact name, else the listed name a dated release extends; unpriced costs 0', async () => {
    const rows = await tokens((r) => {
      r.model({ startMs: 200, endMs: 300, model: 'gpt-4o-2024-08-06', input: 1000, output: 100 });
      r.model({ startMs: 200, endMs: 300, model: 'gpt-4o-mini-2024-07-18', input: 1000, output: 100 });
      r.model({ startMs: 200, endMs: 300, model: 'llama-3', input: 1000, output: 100 });
      r.model({ startMs: 200, endMs: 300, input: 1000, output: 100 });
    });
    expect(rows.map((x) => [x['model'], x['priced']])).toEqual([
      ['gpt-4o-2024-08-06', true],
      ['gpt-4o-mini-2024-07-18', true],
      ['llama-3', false],
      ['(unknown)', false],
    ]);
    expect(rows.map((x) => x['cost_usd'] as number)[0]).toBeCloseTo(1000 * 2.5e-6 + 100 * 10e-6, 12);
    expect(rows.map((x) => x['cost_usd'] as number)[1]).toBeCloseTo(1000 * 0.15e-6 + 100 * 0.6e-6, 12);
    expect(rows.slice(2).map((x) => x['cost_usd'])).toEqual([0, 0]);
  });

  it('a model takes a listed price only as itself or a dated or versioned release of itself, never as a longer-named sibling', async () => {
    // The table lists the big models only: their minis must not take their prices (METRICS.md §4 cost).
    const prices: Record<string, [number, number]> = { 'gpt-4o': [2.5, 10], 'gpt-5': [1.25, 10], o3: [2, 8], 'claude-sonnet-4': [3, 15], 'gpt-4': [30, 60], 'gemini-2.0-flash': [0.1, 0.4] };
    const models = [
      'gpt-4o',
      'gpt-4o-2024-08-06',
      'gpt-4o-mini',
      'gpt-4o-mini-2024-07-18',
      'gpt-5-mini',
      'o3-mini',
      'o3-2025-04-16',
      'claude-sonnet-4-20250514',
      'claude-sonnet-4@20250514',
      'claude-sonnet-4-latest',
      'claude-sonnet-4-5',
      'gpt-4-0613',
      'gpt-4.1',
      'gemini-2.0-flash-001',
      'gemini-2.0-flash-lite',
      'gpt-4o-2024-08-06-mini',
    ];
    const rows = await tokens(
      (r) => {
        for (const [i, model] of models.entries()) r.model({ startMs: 200 + i, endMs: 300, model, input: 1000, output: 100 });
      },
      { prices },
    );
    const priced = Object.fromEntries(rows.map((x) => [x['model'], x['priced']]));
    expect(priced).toEqual({
      'gpt-4o': true,
      'gpt-4o-2024-08-06': true,
      'gpt-4o-mini': false,
      'gpt-4o-mini-2024-07-18': false,
      'gpt-5-mini': false,
      'o3-mini': false,
      'o3-2025-04-16': true,
      'claude-sonnet-4-20250514': true,
      'claude-sonnet-4@20250514': true,
      'claude-sonnet-4-latest': true,
      'claude-sonnet-4-5': false,
      'gpt-4-0613': true,
      'gpt-4.1': false,
      'gemini-2.0-flash-001': true,
      'gemini-2.0-flash-lite': false,
      'gpt-4o-2024-08-06-mini': false,
    });
    const cost = Object.fromEntries(rows.map((x) => [x['model'], x['cost_usd'] as number]));
    expect(cost['gpt-4o-2024-08-06']).toBeCloseTo(1000 * 2.5e-6 + 100 * 10e-6, 12);
    expect(cost['claude-sonnet-4@20250514']).toBeCloseTo(1000 * 3e-6 + 100 * 15e-6, 12);
    expect(cost['gpt-4o-mini']).toBe(0);
  });

  it('only cancelled runs in the window', async () => {
    const t = traces();
    t.run({ startMs: 0, endMs: 900, outcome: 'completed' }).model({ startMs: 0, endMs: 500, model: 'gpt-4o', output: 40 });
    const late = t.run({ startMs: 5000, endMs: 5900, outcome: 'cancelled' });
    late.cancelRequest(5050);
    late.model({ startMs: 5100, endMs: 5300, model: 'gpt-4o', output: 40 });
    const inWindow = await analyzeTraces(t);
    expect((await inWindow.table('report_tokens')).map((x) => x['run_id'])).toEqual([late.spanId]);
    inWindow.close();
    const a = await analyzeTraces(t, { untilMs: 5000 });
    expect(await a.table('report_tokens')).toEqual([]);
    a.close();
  });
});
