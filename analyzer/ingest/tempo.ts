import * as fs from 'node:fs';
import * as path from 'node:path';
import { listValue } from '@duckdb/node-api';
import { InputError, firstLine } from '../errors.js';
import { query } from '../queries.js';
import { readSmallFile } from '../read-small-file.js';
import type { Store } from '../store.js';
import type { SkippedLine } from './otlp-json.js';

/**
 * Grafana Tempo's Parquet blocks, read where they lie (a local backend or a
 * copy of one: `<tenant>/<block id>/data.parquet` beside `meta.json`). Spans
 * go into the store as from OTLP/JSON (store-tempo-v4.sql, store-tempo-v5.sql).
 */
export interface TempoBlock {
  version: 4 | 5;
  /** The span attribute in each dedicated string column (String01 first; null: unused). */
  spanStrings: (string | null)[];
  /** vParquet5: the span attribute in each dedicated int column (Int01 first). */
  spanInts: (string | null)[];
}

/** The name Tempo gives a block's data. */
export const TEMPO_DATA_FILE = 'data.parquet';

interface DedicatedColumn {
  s?: string;
  n?: string;
  t?: string;
}

/** Column slots per scope and type (tempodb/backend dedicated columns): vParquet4 ten strings, vParquet5 twenty strings and five ints. */
const SLOTS = { 4: { string: 10, int: 0 }, 5: { string: 20, int: 5 } } as const;

/**
 * What meta.json beside `dataFile` says of its block: its format and the
 * span attributes in dedicated columns (taken in meta.json's order, a
 * counter per scope and type, as Tempo maps them), or why it is not read.
 */
export function tempoBlockOf(dataFile: string): TempoBlock | { notRead: string; retry?: true } {
  const meta = path.join(path.dirname(dataFile), 'meta.json');
  if (!fs.existsSync(meta)) {
    return fs.existsSync(path.join(path.dirname(dataFile), 'meta.compacted.json'))
      ? { notRead: 'a Tempo block already compacted into another (meta.compacted.json): its spans are read from that block' }
      : // Tempo writes meta.json last: a block being written is looked at again next time.
        { notRead: 'a Parquet file with no Tempo meta.json beside it (not a Tempo block, or one still being written)', retry: true };
  }
  let parsed: { format?: unknown; version?: unknown; dedicatedColumns?: unknown };
  try {
    // A regular file of at most 1 MiB (Tempo's are a few KiB): a FIFO or a device is refused, not read forever.
    parsed = JSON.parse(readSmallFile(meta, 1024 * 1024)) as typeof parsed;
  } catch (error) {
    return { notRead: InputError.isInstance(error) ? `its meta.json ${error.message.slice(meta.length + 2)}` : `its meta.json is not JSON (${(error as Error).message})` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { notRead: 'its meta.json is not a JSON object' };
  const format = String(parsed.format ?? parsed.version ?? '');
  const version = format.startsWith('vParquet4') ? 4 : format.startsWith('vParquet5') ? 5 : undefined;
  if (version === undefined) return { notRead: `Tempo block format ${JSON.stringify(format)} is not read (vParquet4 and vParquet5 are)` };
  const spanStrings: (string | null)[] = Array.from({ length: SLOTS[version].string }, () => null);
  const spanInts: (string | null)[] = Array.from({ length: SLOTS[version].int }, () => null);
  let strings = 0;
  let ints = 0;
  for (const c of Array.isArray(parsed.dedicatedColumns) ? (parsed.dedicatedColumns as (DedicatedColumn | null)[]) : []) {
    if (typeof c !== 'object' || c === null || (c.s ?? 'span') !== 'span' || typeof c.n !== 'string') continue;
    if ((c.t ?? 'string') === 'int') {
      if (ints < spanInts.length) spanInts[ints] = c.n;
      ints++;
    } else {
      if (strings < spanStrings.length) spanStrings[strings] = c.n;
      strings++;
    }
  }
  // vParquet5 keeps only the columns in use: name as many as there are.
  if (version === 5) return { version, spanStrings: spanStrings.slice(0, strings), spanInts: spanInts.slice(0, ints) };
  return { version, spanStrings, spanInts: [] };
}

/** Store one block's spans; the spans read and how many of them cannot be used, or the reason it could not be read. */
export async function storeTempoBlock(store: Store, ingestId: number, file: string, block: TempoBlock): Promise<{ spans: number; invalid: number } | { skipped: SkippedLine }> {
  try {
    if (block.version === 4) {
      await store.run(query('store-tempo-v4'), { file, span_dedicated: listValue(block.spanStrings), ingest_id: ingestId });
    } else {
      await store.run(query('store-tempo-v5'), { file, span_dedicated: listValue(block.spanStrings), span_dedicated_int: listValue(block.spanInts), ingest_id: ingestId });
    }
  } catch (error) {
    return { skipped: { file, line: 0, reason: `DuckDB could not read this Tempo vParquet${block.version} block: ${firstLine(error)}` } };
  }
  const counts = (await store.typedRows('file-counts', { ingest_id: ingestId, files: listValue([file]) })).find((c) => c.file === file);
  return { spans: Number(counts?.spans ?? 0n), invalid: Number(counts?.invalid ?? 0n) };
}
