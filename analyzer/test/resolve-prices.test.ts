import * as fs from 'node:fs';
import { findProvider } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { GENAI_PRICES_VERSION, resolvePrices, type PriceKey } from '../resolve-prices.js';

/** resolve-prices.ts: each provider, model and minute priced by the user's table, else by the real @pydantic/genai-prices (its bundled data). */
const minute = (iso: string): bigint => BigInt(Date.parse(iso) / 60_000);
const key = (provider: string, model: string, iso = '2026-09-22T12:00:00Z'): PriceKey => ({ provider, model, minute: minute(iso) });
const price = (rows: ReturnType<typeof resolvePrices>) => rows.map((r) => [r.model, r.input, r.output, r.tier_above, r.tier_input, r.tier_output]);

describe('resolvePrices', () => {
  it('prices models newer than the old shipped table by provider, with the long-context tier where there is one', () => {
    expect(price(resolvePrices([key('openai', 'gpt-5.1'), key('anthropic', 'claude-sonnet-4-5'), key('anthropic.messages', 'claude-sonnet-4-5-20250929')]))).toEqual([
      ['gpt-5.1', 1.25, 10, -1, 1.25, 10],
      ['claude-sonnet-4-5', 3, 15, 200000, 6, 22.5],
      ['claude-sonnet-4-5-20250929', 3, 15, 200000, 6, 22.5],
    ]);
  });

  it('takes the price of the call’s date, and of its time of day where the provider’s price depends on it', () => {
    expect(price(resolvePrices([key('openai', 'o3', '2025-06-09T23:59:00Z'), key('openai', 'o3', '2025-06-10T00:00:00Z')]))).toEqual([
      ['o3', 10, 40, -1, 10, 40],
      ['o3', 2, 8, -1, 2, 8],
    ]);
    // DeepSeek's standard price from 00:30 to 16:30 UTC, its off-peak one otherwise: two minutes of one day.
    const [peak, offPeak] = resolvePrices([key('deepseek', 'deepseek-chat', '2026-09-22T12:00:00Z'), key('deepseek', 'deepseek-chat', '2026-09-22T20:00:00Z')]);
    expect(peak!.input).toBeGreaterThan(offPeak!.input);
  });

  it('leaves out what it cannot price; a provider genai-prices does not know: the model by its name', () => {
    expect(resolvePrices([key('openai', 'my-finetune-7b'), key('', 'my-finetune-7b')])).toEqual([]);
    expect(price(resolvePrices([key('my-gateway', 'gpt-5.1'), key('', 'gpt-5.1')]))).toEqual([
      ['gpt-5.1', 1.25, 10, -1, 1.25, 10],
      ['gpt-5.1', 1.25, 10, -1, 1.25, 10],
    ]);
  });

  it('the user’s table first, for the models it lists (exactly, or a dated release of one), whatever the provider and date; genai-prices for the rest', () => {
    const table = { models: { 'gpt-5.1': { input_usd_per_mtok: 1, output_usd_per_mtok: 2 }, 'in-house': { input_usd_per_mtok: 3, output_usd_per_mtok: 4 } } };
    const rows = resolvePrices([key('openai', 'gpt-5.1'), key('azure', 'gpt-5.1-2025-11-13', '2024-01-01T00:00:00Z'), key('', 'in-house'), key('anthropic', 'claude-sonnet-4-5'), key('', 'constructor')], table);
    expect(price(rows)).toEqual([
      ['gpt-5.1', 1, 2, -1, 1, 2],
      ['gpt-5.1-2025-11-13', 1, 2, -1, 1, 2],
      ['in-house', 3, 4, -1, 3, 4],
      ['claude-sonnet-4-5', 3, 15, 200000, 6, 22.5],
    ]);
    // Without genai-prices (the query tests' own tables): only the table.
    expect(price(resolvePrices([key('openai', 'gpt-5.1'), key('anthropic', 'claude-sonnet-4-5')], table, { genaiPrices: false }))).toEqual([['gpt-5.1', 1, 2, -1, 1, 2]]);
  });

  it('the bundled data has no price of more than one tier, nor input and output tiers that start apart (either would leave a model unpriced)', () => {
    const providers = ['openai', 'anthropic', 'google', 'aws', 'azure', 'mistral', 'deepseek', 'x-ai', 'groq', 'openrouter', 'together', 'fireworks', 'cohere', 'perplexity'];
    let prices = 0;
    for (const id of providers) {
      for (const model of findProvider({ providerId: id })?.models ?? []) {
        for (const p of Array.isArray(model.prices) ? model.prices.map((c) => c.prices) : [model.prices]) {
          prices++;
          const tiers = (v: unknown): number[] | null => (typeof v === 'object' && v !== null ? (v as { tiers: { start: number }[] }).tiers.map((t) => t.start) : null);
          const input = tiers(p['input_mtok']);
          const output = tiers(p['output_mtok']);
          expect((input ?? []).length, `${id} ${model.id}`).toBeLessThanOrEqual(1);
          expect((output ?? []).length, `${id} ${model.id}`).toBeLessThanOrEqual(1);
          if (input !== null && output !== null) expect(input, `${id} ${model.id}`).toEqual(output);
        }
      }
    }
    expect(prices).toBeGreaterThan(500);
  });

  it('names the version of genai-prices that package.json pins', () => {
    const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    expect(GENAI_PRICES_VERSION).toBe(manifest.dependencies['@pydantic/genai-prices']);
  });
});
