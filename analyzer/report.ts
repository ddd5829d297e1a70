import { listValue } from '@duckdb/node-api';
import { query } from './queries.js';
import type { Store } from './store.js';
import { reportSpanFiles } from './span-files.js';
import { assembleReport, loadReportPrices, PREPARE, reportParams, type ReportOptions, type ReportRows } from './report-assembly.js';
import type { LeakReport, SkippedInput } from './types.js';
import type { IngestSummary } from './ingest/ingest.js';

/**
 * The leak report over the store (DuckDB): the prepare chain run in the store,
 * then the rows placed by report-assembly.ts, the engine-neutral half that
 * ClickHouse's report (clickhouse/report.ts) shares.
 */

export type { ReportOptions } from './report-assembly.js';

/** report_spans: the spans of the window's days (and of the runs linked to it), read from their Parquet files (span-files.ts). */
export async function prepareReportSpans(store: Store, sinceNs: bigint | null, untilNs: bigint | null): Promise<void> {
  const files = await reportSpanFiles(store, sinceNs, untilNs);
  if (files.length > 0) {
    await store.run(query('prepare-spans'), { files: listValue(files) });
    await store.run(query('prepare-spans-view'));
  } else {
    await store.run(query('prepare-spans-empty'));
  }
}

/**
 * The prepare queries, in order, with the parameters they take from the report's options. They read the
 * facts the ingest kept, not the spans: report_spans ({@link prepareReportSpans}) is not built for a report.
 */
export async function prepareReport(store: Store, options: Pick<ReportOptions, 'since' | 'until' | 'budgetMs' | 'prices'>): Promise<void> {
  await loadReportPrices(
    (params) => store.typedRows('model-call-price-keys', params),
    (prices) => store.run(query('load-prices'), { prices }),
    options,
  );
  const params = reportParams(options);
  for (const name of PREPARE) await store.run(query(name), params(name));
}

/** At most this many skipped lines are listed in a report's input (`skipped_count` counts them all). */
export const MAX_SKIPPED_LISTED = 1_000;

/** The lines skipped in the files the ingest's inputs named (the session's input_files), the first {@link MAX_SKIPPED_LISTED}, and how many in all. */
export async function inputSkippedLines(store: Store): Promise<{ skipped: SkippedInput[]; count: number }> {
  const [count] = await store.typedRows('input-skipped-count');
  const n = Number(count?.n ?? 0n);
  return { skipped: n === 0 ? [] : await store.typedRows('input-skipped-lines', { limit: BigInt(MAX_SKIPPED_LISTED) }), count: n };
}

/**
 * Compute the leak report over what the store holds, for runs that start in
 * the window. Each figure is computed by its query in queries/; this only
 * places the results.
 */
export async function buildReport(store: Store, options: ReportOptions, ingested: IngestSummary, inputs: readonly string[] = []): Promise<LeakReport> {
  await prepareReport(store, options);
  const { skipped, count } = await inputSkippedLines(store);
  const rowsOf: ReportRows = (name, params) => store.typedRows(name, params);
  return assembleReport(rowsOf, options, {
    paths: [...inputs],
    files: ingested.files,
    files_read: ingested.read,
    spans_read: ingested.spansRead,
    spans_added: ingested.spansAdded,
    spans_in_store: ingested.spansInStore,
    skipped,
    skipped_count: count,
  });
}
