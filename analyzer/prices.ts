import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from './errors.js';
import { readSmallFile } from './read-small-file.js';

/** The largest price table read (the shipped one is 3 KiB). */
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
 * date or a version tag of that same model, nothing else (RE2, matched
 * whole). `gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`, `gpt-4-0613`,
 * `gemini-2.0-flash-001`, `claude-3-5-haiku-latest`, `claude-sonnet-4@20250514`
 * (Vertex) take the listed name's price; `gpt-4o-mini`, `gpt-5-mini` or
 * `o3-mini` never take `gpt-4o`'s, `gpt-5`'s or `o3`'s: without an entry of
 * their own they are unpriced (and counted in `unpriced_calls`).
 */
export const VERSION_SUFFIX = String.raw`(-(\d{4}-\d{2}-\d{2}|\d{8}|\d{3,4}|latest|v\d+(\.\d+)*(:\d+)?))+|@.+`;

function shippedPath(): string {
  for (const candidate of ['./prices.json', '../../analyzer/prices.json']) {
    const file = fileURLToPath(new URL(candidate, import.meta.url));
    if (fs.existsSync(file)) return file;
  }
  throw new Error('afterstop: the shipped price table is missing from this installation');
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

/** The price table that ships with afterstop (dated), or the one in `file`, which replaces it. */
export function loadPrices(file?: string): PriceTable {
  const path = file ?? shippedPath();
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
