import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { InputError, firstLine, isOutOfMemory, isStorageFailure } from './errors.js';
import { loadPrices } from './prices.js';
import { query, type Query } from './queries.js';
import { prepareReport, prepareReportSpans } from './report.js';
import { reportParams, windowParams } from './report-assembly.js';
import { withStore } from './store.js';

/** What `afterstop query` asks of the store: a read-only query of queries/, its parameters as the user typed them. */
export interface StoreQueryOptions {
  db: string;
  /** `name=value` pairs (lists comma-separated). */
  params: readonly string[];
  since?: Date | undefined;
  until?: Date | undefined;
  budgetMs: number;
  /** A price table file, for queries over the report. */
  prices?: string | undefined;
}

/** A parameter's text as the type the query's header declares. */
export function coerceParam(q: Query, name: string, value: string): DuckDBValue {
  const declared = q.params.find((p) => p.name === name);
  if (declared === undefined) throw new InputError(`${q.name}: no parameter ${name} (it takes: ${q.params.map((p) => p.name).join(', ') || 'none'})`);
  const type = declared.type.toUpperCase();
  if (type.endsWith('[]')) return listValue(value === '' ? [] : value.split(','));
  if (/INT/.test(type)) {
    if (!/^-?\d+$/.test(value)) throw new InputError(`${q.name}: ${name} must be an integer`);
    return BigInt(value);
  }
  if (/DOUBLE|FLOAT|DECIMAL/.test(type)) {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new InputError(`${q.name}: ${name} must be a number`);
    return n;
  }
  return value;
}

/** What a sink threw, carried past withStore's mapping of disk errors (a full disk under stdout is not the store's). */
class SinkFailure {
  constructor(readonly error: unknown) {}
}

const fed = async (feed: () => void | Promise<void>): Promise<void> => {
  try {
    await feed();
  } catch (error) {
    throw new SinkFailure(error);
  }
};

/** Where a query's rows go as they are read: its columns first, then its rows a chunk at a time. */
export interface RowSink {
  columns(names: readonly string[]): void | Promise<void>;
  rows(chunk: Record<string, unknown>[]): void | Promise<void>;
}

/**
 * Run the query `name` over the store and hand its rows to `sink` as DuckDB reads them (what is held is a
 * chunk's). Bad parameters are InputErrors, and so is the query's failure on the values given (a negative
 * limit); the memory limit and a full disk are thrown as DuckDB says them, and what the sink throws as it
 * threw it. A failure after rows were handed over leaves the sink with part of them. The store is always closed.
 */
export async function streamStoreQuery(name: string, options: StoreQueryOptions, sink: RowSink): Promise<void> {
  const q = query(name);
  const params: Record<string, DuckDBValue> = {};
  for (const p of options.params) {
    const at = p.indexOf('=');
    params[p.slice(0, at)] = coerceParam(q, p.slice(0, at), p.slice(at + 1));
  }
  // The parameters the report gives a query (for a read-only one, the window: --since and --until, an open end
  // NULL) come from the options, as they do for the prepared tables it reads, so that both agree.
  const fromOptions = reportParams({ since: options.since, until: options.until, budgetMs: options.budgetMs })(name);
  for (const key of Object.keys(fromOptions)) {
    if (key in params) throw new InputError(`${name}: ${key} is the window: give --since and --until instead of --param ${key}`);
  }
  Object.assign(params, fromOptions);
  const missing = q.params.filter((p) => !(p.name in params)).map((p) => p.name);
  if (missing.length > 0) throw new InputError(`${name}: give --param ${missing.map((m) => `${m}=...`).join(' --param ')}`);
  try {
    await withStore(options.db, async (store) => {
      // Queries over the report's tables (report_runs, report_tokens, ...) need them prepared first.
      if (q.sql.includes('report_')) {
        await prepareReport(store, { since: options.since, until: options.until, budgetMs: options.budgetMs, ...(options.prices !== undefined ? { prices: loadPrices(options.prices) } : {}) });
      }
      // And those over the window's spans (run-timeline.sql), the view of its Parquet files.
      if (q.sql.includes('report_spans')) {
        const window = windowParams({ since: options.since, until: options.until });
        await prepareReportSpans(store, window.since_ns, window.until_ns);
      }
      // The query is ours and ran in the tests: what fails in DuckDB here is the values the user gave it (a
      // negative limit), unless it is the memory limit or the disk (said as such by the CLI).
      const fromDuckDB = <T>(step: Promise<T>): Promise<T> =>
        step.catch((error: unknown) => {
          throw isOutOfMemory(error) || isStorageFailure(error) ? error : new InputError(`${name}: ${firstLine(error)} (check the --param values)`, { cause: error });
        });
      const result = await fromDuckDB(store.streamRows(q, params));
      const chunks = result.chunks[Symbol.asyncIterator]();
      try {
        await fed(() => sink.columns(result.columns));
        for (;;) {
          const next = await fromDuckDB(chunks.next());
          if (next.done === true) return;
          await fed(() => sink.rows(next.value));
        }
      } finally {
        // A sink that failed leaves the stream unread: closed here, before the store is.
        await chunks.return?.();
      }
    });
  } catch (error) {
    // What the sink threw, as it threw it: not the user's values, nor the store's disk.
    if (error instanceof SinkFailure) throw error.error;
    throw error;
  }
}
