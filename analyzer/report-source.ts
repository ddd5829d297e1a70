import { checkClickHouseUrl, parseTable } from './clickhouse/clickhouse-url.js';
import { DEFAULT_DB } from './default-store.js';
import { InputError } from './errors.js';
import { reportOptions, type ReportRequest } from './report-request.js';
import { serverText } from './redact.js';
import type { LeakReport } from './types.js';

/**
 * Where a leak report is computed. The same report JSON from each: the store
 * over trace files (DuckDB, embedded), ClickHouse over the Collector
 * exporter's traces table, and whatever comes next; a command or a program
 * picks a source and asks it for the report, and never which engine runs.
 * Each engine is loaded (`await import()`) when its source is asked for a
 * report, and only then: the ClickHouse path never loads DuckDB's native
 * module, nor the file path ClickHouse's client.
 */
export interface ReportSource {
  /** What it reads, in words (for progress lines). */
  readonly description: string;
  report(request: ReportRequest): Promise<LeakReport>;
}

export type { ReportRequest } from './report-request.js';

/** Trace files (OTLP/JSON, Tempo blocks), ingested into the store (a folder kept across runs, or ':memory:'), then reported on. */
export function traceFilesSource(options: { inputs: readonly string[]; db?: string; trackProgress?: boolean }): ReportSource {
  return {
    description: `${options.inputs.length} input(s) into the store ${options.db ?? DEFAULT_DB}`,
    report: async (request) =>
      (await import('./analyze.js')).analyze({
        ...request,
        inputs: options.inputs,
        db: options.db ?? DEFAULT_DB,
        ...(options.trackProgress !== undefined ? { trackProgress: options.trackProgress } : {}),
      }),
  };
}

/**
 * The leak model run inside ClickHouse over the Collector exporter's traces
 * table (`otel.otel_traces` by default). Its failures (unreachable, no such
 * table, refused SQL) are input errors naming the server by its origin,
 * without user or password.
 */
export function clickhouseReportSource(options: { url: string; table?: string }): ReportSource {
  const table = options.table ?? 'otel.otel_traces';
  checkClickHouseUrl(options.url);
  const { origin } = new URL(options.url);
  return {
    description: `ClickHouse at ${origin}, table ${table}`,
    report: async (request) => {
      const [{ ClickHouseSource }, { clickhouseReport }] = await Promise.all([import('./clickhouse/source.js'), import('./clickhouse/report.js')]);
      const source = ClickHouseSource.forUrl(options.url, parseTable(table));
      try {
        request.progress?.(`computing the report in ClickHouse at ${origin}`);
        return await clickhouseReport(source, reportOptions(request));
      } catch (error) {
        throw new InputError(`ClickHouse at ${origin}, table ${table}: ${serverSaid(error)}`, { path: origin });
      } finally {
        await source.close();
      }
    },
  };
}

/**
 * What a server answered, as one line a terminal can show: cut, control and invisible characters shown as
 * U+FFFD, credentials masked (a server's error body is not ours to echo raw: it may echo the request).
 */
export const serverSaid = (error: unknown): string => serverText(error instanceof Error ? error.message : String(error));
