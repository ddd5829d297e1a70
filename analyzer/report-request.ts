import { loadPrices } from './prices.js';
import type { ReportOptions } from './report.js';

/** What a report is asked for, the same whatever the source. */
export interface ReportRequest {
  since?: Date;
  until?: Date;
  /** Cancel depth budget (METRICS.md §8). Default 1000 ms. */
  budgetMs?: number;
  /** At most this many findings. Default 1000. */
  findingsLimit?: number;
  /** A price table that replaces the shipped one. */
  pricesFile?: string;
  /** Draw the runs of this many of the worst findings (distinct runs) into the report's `timelines`. Default 0: none. */
  timelines?: number;
  /** A line of progress now and then; with a percentage while a long read runs (trace files, `trackProgress`). */
  progress?: (message: string, percentage?: number) => void;
}

/** The report's options from a request: prices loaded, their source named, the window and limits as given. */
export function reportOptions(request: ReportRequest): ReportOptions {
  return {
    prices: loadPrices(request.pricesFile),
    pricesSource: request.pricesFile ?? 'shipped',
    ...(request.since !== undefined ? { since: request.since } : {}),
    ...(request.until !== undefined ? { until: request.until } : {}),
    ...(request.budgetMs !== undefined ? { budgetMs: request.budgetMs } : {}),
    ...(request.findingsLimit !== undefined ? { findingsLimit: request.findingsLimit } : {}),
  };
}
