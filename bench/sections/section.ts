import type { BenchRow } from '../results.js';

/** What a section of `npm run bench` is given: where to work, where its rows and details go, and progress on stderr. */
export interface SectionContext {
  /** The bench's working folder (BENCH_DIR, default .bench-out): generated inputs, stores. */
  work: string;
  rows: BenchRow[];
  details: Record<string, unknown>;
  progress(what: string): void;
  /** The span counts the analyzer's sections measured (the results' `spans`). */
  spansMeasured: number[];
}

/** One section of the bench: `--only RE` runs those whose name matches. */
export interface Section {
  name: string;
  run(context: SectionContext): Promise<void> | void;
}

/** A count as the rows write it (1,000,000). */
export const count = (n: number): string => n.toLocaleString('en-US');

/** BENCH_SPANS (default 1,000,000 and 10,000,000): the sizes of the analyzer's and ClickHouse's sections. */
export const benchSizes = (): number[] => (process.env['BENCH_SPANS'] ?? '1000000,10000000').split(',').map(Number);
