import type { AnalyzeOptions } from './analyze.js';
import type { ExplainOptions } from './explain.js';
import type { IngestSummary } from './ingest/ingest.js';
import { isReadOnly, listQueries, type Query } from './queries.js';
import type { PruneSummary } from './span-files.js';
import type { RowSink, StoreQueryOptions } from './store-query.js';
import type { Explanation } from './types.js';

/**
 * The store (DuckDB over Parquet files) as the commands reach it, besides a
 * report (report-source.ts): ingest, prune, explain and the named queries.
 * The commands import this module, never the store's; it loads DuckDB
 * (`await import()`) only when one of them is asked of it, so that a command
 * that does not use the store (leak-report over ClickHouse, the simulator)
 * never loads DuckDB's native module.
 */

export { DEFAULT_DB } from './default-store.js';
export { parseExplainTarget } from './explain-target.js';
export type { RowSink, StoreQueryOptions } from './store-query.js';

/** Only read the inputs into the store (what `afterstop ingest` does); the store is always closed. */
export async function ingestTraces(options: Pick<AnalyzeOptions, 'inputs' | 'db' | 'progress' | 'trackProgress'>): Promise<IngestSummary> {
  return (await import('./analyze.js')).ingestInto(options);
}

/** Remove the days wholly before `beforeNs`, and what is stamped at or after `futureNs`, from the store at `db`. */
export async function pruneStore(db: string, beforeNs: bigint, futureNs: bigint): Promise<PruneSummary> {
  const [{ withStore }, { pruneSpanFiles }] = await Promise.all([import('./store.js'), import('./span-files.js')]);
  return withStore(db, (store) => pruneSpanFiles(store, beforeNs, futureNs));
}

/** The runs a target names, drawn against their Stop (explain.ts). */
export async function explainRuns(options: ExplainOptions): Promise<Explanation> {
  return (await import('./explain.js')).explain(options);
}

/** The read-only queries of queries/ (`afterstop query` runs only those). */
export const readOnlyQueries = (): { file: string; query: Query }[] => listQueries().filter((q) => isReadOnly(q.query));

/** Run the read-only query `name` over the store, its rows handed to `sink` as they are read (store-query.ts). */
export async function streamStoreQuery(name: string, options: StoreQueryOptions, sink: RowSink): Promise<void> {
  return (await import('./store-query.js')).streamStoreQuery(name, options, sink);
}
