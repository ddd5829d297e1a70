import { InputError } from './errors.js';
import { readSmallFile } from './read-small-file.js';

/** The largest price table read. */
const PRICE_TABLE_MAX_BYTES = 4 * 1024 * 1024;

/** Dollars per million tokens, input and output priced apart. */
export interface ModelPrice {
  input_usd_per_mtok: number;
  output_usd_per_mtok: number;
}

export interface PriceTable {
  as_of?: string;
  models: Record<string, ModelPrice>;
}

/**
 * What may follow a listed model's name for the model to take its price: a
 * date or a version tag of that same model, nothing else (matched
 * whole). `gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`, `gpt-4-0613`,
 * `gemini-2.0-flash-001`, `claude-3-5-haiku-latest`, `claude-sonnet-4@20250514`
 * (Vertex) take the listed name's price; `gpt-4o-mini`, `gpt-5-mini` or
 * `o3-mini` never take `gpt-4o`'s, `gpt-5`'s or `o3`'s: without an entry of
 * their own they are priced as genai-prices prices them, or unpriced.
 */
export const VERSION_SUFFIX = String.raw`(-(\d{4}-\d{2}-\d{2}|\d{8}|\d{3,4}|latest|v\d+(\.\d+)*(:\d+)?))+|@.+`;

/** The price `table` gives `model`: its exact name, else the longest listed name it extends by a date or version tag ({@link VERSION_SUFFIX}). */
export function userPrice(table: PriceTable, model: string): ModelPrice | undefined {
  if (Object.hasOwn(table.models, model)) return table.models[model];
  const suffix = new RegExp(`^(?:${VERSION_SUFFIX})$`);
  let best: string | undefined;
  for (const listed of Object.keys(table.models)) {
    if (model.startsWith(listed) && suffix.test(model.slice(listed.length)) && (best === undefined || listed.length > best.length)) best = listed;
  }
  return best === undefined ? undefined : table.models[best];
}

/** Check a parsed price table; name the file and the model when something is off. */
export function parsePriceTable(value: unknown, file: string): PriceTable {
  if (typeof value !== 'object' || value === null || typeof (value as { models?: unknown }).models !== 'object' || (value as { models?: unknown }).models === null) {
    throw new InputError(`${file}: a price table is {"models": {"<model>": {"input_usd_per_mtok": n, "output_usd_per_mtok": n}}}`, { path: file });
  }
  const models: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries((value as { models: Record<string, unknown> }).models)) {
    const p = price as Partial<ModelPrice> | null;
    const valid = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
    if (!p || !valid(p.input_usd_per_mtok) || !valid(p.output_usd_per_mtok)) {
      throw new InputError(`${file}: model ${model} needs non-negative numbers input_usd_per_mtok and output_usd_per_mtok`, { path: file });
    }
    models[model] = { input_usd_per_mtok: p.input_usd_per_mtok, output_usd_per_mtok: p.output_usd_per_mtok };
  }
  const asOf = (value as { as_of?: unknown }).as_of;
  return typeof asOf === 'string' ? { as_of: asOf, models } : { models };
}

/**
 * The user's price table in `file` (`--prices`): its models take its prices, over @pydantic/genai-prices's
 * (resolve-prices.ts), whatever their provider and date.
 */
export function loadPrices(path: string): PriceTable {
  // A regular file of at most 4 MiB: a FIFO or /dev/zero given as --prices is refused, not read forever.
  const text = readSmallFile(path, PRICE_TABLE_MAX_BYTES);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${path}: not JSON (${(error as Error).message})`, { path });
  }
  return parsePriceTable(parsed, path);
}
