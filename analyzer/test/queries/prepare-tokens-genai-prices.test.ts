import { describe, expect, it } from 'vitest';
import { analyzeTraces, BASE_NS, traces, type Run } from '../../../test/helpers/trace-builder.js';

/**
 * prepare-tokens.sql over the prices the report loads: @pydantic/genai-prices (its bundled data, the real
 * package) by the call's provider, model and date, the user's --prices table over it. Figures from
 * genai-prices' data as pinned in package.json: gpt-5.1 $1.25 / $10, claude-sonnet-4-5 $3 / $15 ($6 /
 * $22.5 above 200k input tokens), o3 $10 / $40 before 2025-06-10 and $2 / $8 from then.
 */
const BASE_MS = Number(BASE_NS / 1_000_000n);
/** ms after the base of a UTC time. */
const at = (iso: string): number => Date.parse(iso) - BASE_MS;

const tokens = async (build: (r: Run) => void, o: { prices?: Record<string, [number, number]>; startMs?: number } = {}) => {
  const t = traces();
  const start = o.startMs ?? 0;
  const r = t.run({ startMs: start, endMs: start + 2000, outcome: 'cancelled' });
  r.cancelRequest(start + 100);
  build(r);
  const a = await analyzeTraces(t, { genaiPrices: true, prices: o.prices ?? {} });
  const rows = await a.table('report_tokens', 'ORDER BY span_id');
  a.close();
  return rows;
};
const cost = (rows: Record<string, unknown>[]) => Object.fromEntries(rows.map((x) => [x['model'], [x['priced'], x['cost_usd']]]));

describe('prepare-tokens, priced by genai-prices', () => {
  it('models released after the old shipped table (gpt-5.1, claude-sonnet-4-5) take their price, by provider', async () => {
    const rows = await tokens((r) => {
      r.model({ startMs: 200, endMs: 300, model: 'gpt-5.1', provider: 'openai', input: 1000, output: 100 });
      r.model({ startMs: 200, endMs: 300, model: 'claude-sonnet-4-5', provider: 'anthropic', input: 2000, output: 300 });
      // The AI SDK's provider name, and a dated release
      r.model({ startMs: 200, endMs: 300, model: 'claude-sonnet-4-5-20250929', provider: 'anthropic.messages', input: 10, output: 10 });
    });
    const c = cost(rows);
    expect(c['gpt-5.1']![0]).toBe(true);
    expect(c['gpt-5.1']![1]).toBeCloseTo(1000 * 1.25e-6 + 100 * 10e-6, 12);
    expect(c['claude-sonnet-4-5']![1]).toBeCloseTo(2000 * 3e-6 + 300 * 15e-6, 12);
    expect(c['claude-sonnet-4-5-20250929']![1]).toBeCloseTo(10 * 3e-6 + 10 * 15e-6, 12);
  });

  it('the long-context tier prices the whole call once its input passes 200k tokens', async () => {
    const rows = await tokens((r) => {
      r.model({ startMs: 200, endMs: 300, model: 'claude-sonnet-4-5', provider: 'anthropic', input: 250_000, output: 1000 });
    });
    expect(rows[0]!['cost_usd']).toBeCloseTo(250_000 * 6e-6 + 1000 * 22.5e-6, 12);
  });

  it('a price that changed on a date: each call at the price of the day it started', async () => {
    const before = await tokens((r) => r.model({ startMs: at('2025-06-09T12:00:00Z'), endMs: at('2025-06-09T12:00:01Z'), model: 'o3', input: 1000, output: 100 }), { startMs: at('2025-06-09T11:59:59.500Z') });
    const after = await tokens((r) => r.model({ startMs: at('2025-06-11T12:00:00Z'), endMs: at('2025-06-11T12:00:01Z'), model: 'o3', input: 1000, output: 100 }), { startMs: at('2025-06-11T11:59:59.500Z') });
    expect(before[0]!['cost_usd']).toBeCloseTo(1000 * 10e-6 + 100 * 40e-6, 12);
    expect(after[0]!['cost_usd']).toBeCloseTo(1000 * 2e-6 + 100 * 8e-6, 12);
  });

  it('a model genai-prices does not know: unpriced, its cost 0 and priced false; a provider it does not know: the model by its name', async () => {
    const rows = await tokens((r) => {
      r.model({ startMs: 200, endMs: 300, model: 'my-finetune-7b', input: 100, output: 10 });
      r.model({ startMs: 200, endMs: 300, model: 'gpt-5.1', provider: 'my-gateway', input: 1000, output: 0 });
      r.model({ startMs: 200, endMs: 300, model: 'gpt-5.1', provider: null, input: 0, output: 100 });
    });
    expect(rows.map((x) => [x['model'], x['priced'], x['cost_usd']])).toEqual([
      ['my-finetune-7b', false, 0],
      ['gpt-5.1', true, expect.closeTo(1000 * 1.25e-6, 12)],
      ['gpt-5.1', true, expect.closeTo(100 * 10e-6, 12)],
    ]);
  });

  it('--prices overrides: a model the user lists takes the user’s price, whatever its provider and date; the others keep genai-prices’', async () => {
    const rows = await tokens(
      (r) => {
        r.model({ startMs: 200, endMs: 300, model: 'gpt-5.1', provider: 'openai', input: 1000, output: 100 });
        r.model({ startMs: 200, endMs: 300, model: 'claude-sonnet-4-5', provider: 'anthropic', input: 250_000, output: 100 });
        r.model({ startMs: 200, endMs: 300, model: 'my-finetune-7b', input: 100, output: 10 });
      },
      { prices: { 'gpt-5.1': [1, 2], 'my-finetune-7b': [5, 50] } },
    );
    const c = cost(rows);
    expect(c['gpt-5.1']![1]).toBeCloseTo(1000 * 1e-6 + 100 * 2e-6, 12);
    expect(c['my-finetune-7b']).toEqual([true, expect.closeTo(100 * 5e-6 + 10 * 50e-6, 12)]);
    expect(c['claude-sonnet-4-5']![1]).toBeCloseTo(250_000 * 6e-6 + 100 * 22.5e-6, 12);
  });
});
