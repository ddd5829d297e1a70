import { ingest, type IngestSummary } from './ingest/ingest.js';
import { buildReport, prepareReport } from './report.js';
import { loadTimelines, worstRuns } from './run-timeline.js';
import { reportOptions, type ReportRequest } from './report-request.js';
import { type Store, withStore } from './store.js';
import type { LeakReport } from './types.js';
import { DEFAULT_DB } from './default-store.js';

export interface AnalyzeOptions extends ReportRequest {
  /** Trace files, folders and glob patterns. */
  inputs: readonly string[];
  /** The store: a folder that accumulates across runs (default ./afterstop-store), or ':memory:'. */
  db?: string;
  /** Pass a percentage (0-100) to `progress` too, while a long read runs. */
  trackProgress?: boolean;
}

/** Poll the store's progress while `body` runs and pass it on with the last message. */
async function withProgress<T>(store: Store, options: AnalyzeOptions, body: (progress?: (message: string) => void) => Promise<T>): Promise<T> {
  const report = options.progress;
  if (report === undefined) return body();
  if (!options.trackProgress) return body(report);
  await store.trackProgress();
  let last = '';
  const timer = setInterval(() => {
    const pct = store.progress();
    if (pct !== undefined) report(last, pct);
  }, 250);
  timer.unref();
  try {
    return await body((message) => report((last = message)));
  } finally {
    clearInterval(timer);
  }
}

export { DEFAULT_DB };

/**
 * Ingest the inputs into the store (only what it has not seen) and compute
 * the leak report over everything the store holds in the window. The store is
 * always closed.
 */
export async function analyze(options: AnalyzeOptions): Promise<LeakReport> {
  const report = reportOptions(options);
  return withStore(options.db ?? DEFAULT_DB, async (store) => {
    const ingested = await withProgress(store, options, (progress) => ingest(store, options.inputs, progress));
    options.progress?.(`${ingested.spansAdded} new spans from ${ingested.read} of ${ingested.files} file(s); computing the report`);
    const built = await buildReport(store, report, ingested, options.inputs);
    if ((options.timelines ?? 0) > 0) {
      options.progress?.('drawing the runs of the worst findings');
      // A run is drawn whole, and its next run may lie outside the window: its figures over no window.
      if (report.since !== undefined || report.until !== undefined) await prepareReport(store, { ...report, since: undefined, until: undefined });
      built.timelines = await loadTimelines(store, worstRuns(built.findings, options.timelines ?? 0), options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {});
    }
    return built;
  });
}

/** Only read the inputs into the store (what `afterstop ingest` does); the store is always closed. */
export async function ingestInto(options: Pick<AnalyzeOptions, 'inputs' | 'db' | 'progress' | 'trackProgress'>): Promise<IngestSummary> {
  return withStore(options.db ?? DEFAULT_DB, (store) => withProgress(store, options, (progress) => ingest(store, options.inputs, progress)));
}
