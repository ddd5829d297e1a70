import { DEFAULT_DB } from './default-store.js';
import { InputError } from './errors.js';
import { ingest } from './ingest/ingest.js';
import { inputSkippedLines, prepareReport } from './report.js';
import { findingOf } from './report-assembly.js';
import { reportOptions, type ReportRequest } from './report-request.js';
import { loadTimelines, type TimelineTarget } from './run-timeline.js';
import { withStore, type Store } from './store.js';
import type { ExplainTarget, Explanation, Finding } from './types.js';

/** At most this many runs an id matches are drawn. */
export const MAX_RUNS = 50;

export { parseExplainTarget } from './explain-target.js';

export interface ExplainOptions extends ReportRequest {
  target: ExplainTarget;
  /** Trace files, folders and globs read into the store first (none: the store as it is). */
  inputs: readonly string[];
  db?: string;
}

/** The store's key of the run a finding names, and the finding as the report shows it. */
async function findingRun(store: Store, n: number): Promise<{ key: string; finding: Finding }> {
  const rows = await store.typedRows('findings', { limit: BigInt(n) });
  const row = rows[n - 1];
  if (row === undefined) throw new InputError(`finding ${n}: the report has ${rows.length === 0 ? 'no findings' : `only ${rows.length} finding(s)`} in this window`);
  return { key: row.run_id, finding: findingOf(row) };
}

/**
 * Read the inputs into the store (only what it has not seen), then draw the
 * runs the target names against their Stop, with their figures. A finding's
 * number is that of the report over the window asked (`since`, `until`), as
 * leak-report numbered it; the runs are drawn whole, their figures over no
 * window. An id or a finding the store does not hold is an InputError (exit 2).
 * The store is always closed.
 */
export async function explain(options: ExplainOptions): Promise<Explanation> {
  const db = options.db ?? DEFAULT_DB;
  const report = reportOptions(options);
  const open = { ...report, since: undefined, until: undefined };
  return withStore(db, async (store) => {
    await ingest(store, options.inputs, options.progress);
    const { skipped } = await inputSkippedLines(store);
    const target = options.target;
    let finding: Finding | null = null;
    let targets: TimelineTarget[];
    let notDrawn = 0;
    if ('finding' in target) {
      await prepareReport(store, report);
      const found = await findingRun(store, target.finding);
      finding = found.finding;
      targets = [{ key: found.key, ...(finding.kind === 'post_cancel_error' ? { asNextRun: true } : {}) }];
      if (report.since !== undefined || report.until !== undefined) await prepareReport(store, open);
    } else {
      await prepareReport(store, open);
      const rows = await store.typedRows('explain-runs', { id: target.id, limit: BigInt(MAX_RUNS) });
      if (rows.length === 0) {
        throw new InputError(`${JSON.stringify(target.id)}: no run or trace of that id in the store ${db === ':memory:' ? '(in memory)' : db}; give a run id or a trace id as the report shows them, or a finding number`);
      }
      notDrawn = Math.max(0, (rows[0]?.matches ?? 0) - rows.length);
      targets = rows.map((r) => ({ key: r.run_id }));
    }
    const timelines = await loadTimelines(store, targets, options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {});
    return { finding, timelines, runs_not_drawn: notDrawn, skipped };
  });
}
