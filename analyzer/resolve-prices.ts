import * as fs from 'node:fs';
import { calcPrice, findProvider, type ModelInfo, type ModelPrice as GenaiModelPrice } from '@pydantic/genai-prices';
import { userPrice, type PriceTable } from './prices.js';

/**
 * Prices of the report's model calls. Each distinct provider, model and
 * minute of the calls in the window (queries/model/model-call-price-keys.sql)
 * gets one price: the user's table (`--prices`) first, for a model it lists;
 * else @pydantic/genai-prices at that minute (its bundled data: a price that
 * changed on a date is taken as it was when the call started; never fetched
 * at run time). A key neither knows has no price: its calls are unpriced, and
 * every report says how many and how many tokens.
 */

/** What a price is looked up by (model-call-price-keys.sql): provider ('' when the span names none), model, and the minute the call started. */
export interface PriceKey {
  provider: string;
  model: string;
  /** Minutes since the epoch (UTC). */
  minute: bigint;
}

/** One row of report_prices (load-prices.sql): USD per million tokens, and the long-context tier (none: tier_above -1, its prices the base ones). */
export interface PriceRow {
  provider: string;
  model: string;
  minute: number;
  input: number;
  output: number;
  /** The tier's prices apply to a call whose input tokens exceed this. */
  tier_above: number;
  tier_input: number;
  tier_output: number;
}

/** The version of @pydantic/genai-prices whose bundled data prices the report (its package.json, read once). */
export const GENAI_PRICES_VERSION: string = (() => {
  // Its entry is dist/index.js; its package.json is not exported, so it is read beside it.
  const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.resolve('@pydantic/genai-prices')), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
})();

type Price = Omit<PriceRow, 'provider' | 'model' | 'minute'>;

/** A genai-prices price: a number, or `{base, tiers}` (its class TieredPrices, or the same shape in its data). */
type TieredValue = number | { base: number; tiers: { start: number; price: number }[] } | undefined;

const tierOf = (value: TieredValue): { start: number; price: number } | null | 'many' => {
  if (value === undefined || typeof value === 'number') return null;
  if (value.tiers.length === 0) return null;
  return value.tiers.length === 1 ? (value.tiers[0] ?? null) : 'many';
};
const baseOf = (value: TieredValue): number => (value === undefined ? 0 : typeof value === 'number' ? value : value.base);

/**
 * A model price of genai-prices as a row's prices: input and output per million tokens, and the one
 * long-context tier (Anthropic's and Google's above 200k input tokens) that prices the whole call. A price
 * with neither an input nor an output token price (a per-request or per-image price only), or with more than
 * one tier (none in the bundled data: test/analyzer/resolve-prices.test.ts), is no price: unpriced, never a guess.
 */
function fromGenai(price: GenaiModelPrice): Price | undefined {
  const input = price['input_mtok'] as TieredValue;
  const output = price['output_mtok'] as TieredValue;
  if (input === undefined && output === undefined) return undefined;
  const inputTier = tierOf(input);
  const outputTier = tierOf(output);
  if (inputTier === 'many' || outputTier === 'many') return undefined;
  const start = inputTier?.start ?? outputTier?.start;
  // Tiers of input and output that start apart: no single rule prices the call.
  if (inputTier !== null && outputTier !== null && inputTier.start !== outputTier.start) return undefined;
  const base = { input: baseOf(input), output: baseOf(output) };
  return {
    ...base,
    tier_above: start ?? -1,
    tier_input: inputTier?.price ?? base.input,
    tier_output: outputTier?.price ?? base.output,
  };
}

/** Whether a model's price in genai-prices depends on the time of day (some providers' off-peak prices): then it is looked up per minute, not per day. */
const dependsOnTimeOfDay = (model: ModelInfo): boolean => Array.isArray(model.prices) && model.prices.some((p) => p.constraint?.type === 'time_of_date');

/**
 * The price genai-prices gives `model` of `provider` at `at`: the provider by its id or its own matching
 * (`openai.chat` is OpenAI, `aws.bedrock` AWS); a provider genai-prices does not know (a gateway, a name of
 * the app's own) is not a price of its own, and the model is looked up by its name alone, as genai-prices
 * finds its provider.
 */
export function genaiPrice(provider: string, model: string, at: Date): { price: Price; info: ModelInfo } | undefined {
  const known = provider !== '' && findProvider({ providerId: provider }) !== undefined;
  // The usage only makes the call: the price per token is read off the model's price at `at`.
  const result = calcPrice({ input_tokens: 1, output_tokens: 1 }, model, { ...(known ? { providerId: provider } : {}), timestamp: at });
  if (result === null) return undefined;
  const price = fromGenai(result.model_price);
  return price === undefined ? undefined : { price, info: result.model };
}

/**
 * The price of each key: the user's table for a model it lists (its exact name, or a name the model extends
 * by a date or version tag: prices.ts), whatever the provider and date; else genai-prices at the key's minute.
 * Keys without a price are left out. genai-prices is asked once per provider, model and day when the model's
 * price does not depend on the time of day, once per minute when it does.
 */
export function resolvePrices(keys: readonly PriceKey[], table?: PriceTable, options: { genaiPrices?: boolean } = {}): PriceRow[] {
  const useGenai = options.genaiPrices ?? true;
  const daily = new Map<string, { price: Price; info: ModelInfo } | undefined>();
  const rows: PriceRow[] = [];
  for (const key of keys) {
    const minute = Number(key.minute);
    const user = table === undefined ? undefined : userPrice(table, key.model);
    let price: Price | undefined;
    if (user !== undefined) {
      price = { input: user.input_usd_per_mtok, output: user.output_usd_per_mtok, tier_above: -1, tier_input: user.input_usd_per_mtok, tier_output: user.output_usd_per_mtok };
    } else if (useGenai) {
      const at = new Date(minute * 60_000);
      const dayKey = JSON.stringify([key.provider, key.model, Math.floor(minute / 1440)]);
      let found: { price: Price; info: ModelInfo } | undefined;
      if (daily.has(dayKey)) {
        const cached = daily.get(dayKey);
        found = cached !== undefined && dependsOnTimeOfDay(cached.info) ? genaiPrice(key.provider, key.model, at) : cached;
      } else {
        found = genaiPrice(key.provider, key.model, at);
        daily.set(dayKey, found);
      }
      price = found?.price;
    }
    if (price !== undefined) rows.push({ provider: key.provider, model: key.model, minute, ...price });
  }
  return rows;
}
