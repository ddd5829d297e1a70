import { loadPrices } from './prices.js';
import { GENAI_PRICES_VERSION } from './resolve-prices.js';
import type { ReportOptions } from './report-assembly.js';

/** What a report is asked for, the same whatever the source. */
export interface ReportRequest {
  since?: Date;
  until?: Date;
  /** Cancel depth budget (METRICS.md §8). Default 1000 ms. */
  budgetMs?: number;
  /** At most this many findings. Default 1000. */
  findingsLimit?: number;
  /** The user's price table: the models it lists take its prices, over genai-prices'. */
  pricesFile?: string;
  /** Draw the runs of this many of the worst findings (distinct runs) into the report's `timelines`. Default 0: none. */
  timelines?: number;
  /** A line of progress now and then; with a percentage while a long read runs (trace files, `trackProgress`). */
  progress?: (message: string, percentage?: number) => void;
}

/** Where the report's prices come from, as it says: genai-prices and its version, and the user's file over it. */
export const pricesSource = (file: string | undefined): string => (file === undefined ? `@pydantic/genai-prices ${GENAI_PRICES_VERSION}` : `${file} over @pydantic/genai-prices ${GENAI_PRICES_VERSION}`);

/** The report's options from a request: prices loaded, their source named, the window and limits as given. */
export function reportOptions(request: ReportRequest): ReportOptions {
  return {
    ...(request.pricesFile !== undefined ? { prices: loadPrices(request.pricesFile) } : {}),
    pricesSource: pricesSource(request.pricesFile),
    // One time for the whole report: where the future begins (a run stamped after it is in no window).
    now: new Date(),
    ...(request.since !== undefined ? { since: request.since } : {}),
    ...(request.until !== undefined ? { until: request.until } : {}),
    ...(request.budgetMs !== undefined ? { budgetMs: request.budgetMs } : {}),
    ...(request.findingsLimit !== undefined ? { findingsLimit: request.findingsLimit } : {}),
  };
}
