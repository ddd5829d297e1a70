import { ingest } from './ingest/ingest.js';
import { loadPrices } from './prices.js';
import { buildReport } from './report.js';
import { withStore } from './store.js';
import type { LeakReport } from './types.js';

export interface AnalyzeOptions {
  /** Trace files, folders and glob patterns. */
  inputs: readonly string[];
  /** The store: a DuckDB file that accumulates across runs (default ./afterstop.duckdb), or ':memory:'. */
  db?: string;
  /** A price table that replaces the shipped one. */
  pricesFile?: string;
  since?: Date;
  until?: Date;
  budgetMs?: number;
  findingsLimit?: number;
  /** Called with a line of progress now and then (the CLI prints it on stderr). */
  progress?: (message: string) => void;
}

export const DEFAULT_DB = 'afterstop.duckdb';

/**
 * Ingest the inputs into the store (only what it has not seen) and compute
 * the leak report over everything the store holds in the window. The store is
 * always closed.
 */
export async function analyze(options: AnalyzeOptions): Promise<LeakReport> {
  const prices = loadPrices(options.pricesFile);
  return withStore(options.db ?? DEFAULT_DB, async (store) => {
    const ingested = await ingest(store, options.inputs, options.progress);
    options.progress?.(`${ingested.spansAdded} new spans from ${ingested.read} of ${ingested.files} file(s); computing the report`);
    return buildReport(store, {
      since: options.since,
      until: options.until,
      prices,
      pricesSource: options.pricesFile ?? 'shipped',
      ...(options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {}),
      ...(options.findingsLimit !== undefined ? { findingsLimit: options.findingsLimit } : {}),
    }, ingested);
  });
}
