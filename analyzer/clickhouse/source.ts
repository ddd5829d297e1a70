import { randomUUID } from 'node:crypto';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type Logger } from '@clickhouse/client';
import { InputError } from '../errors.js';
import { httpDeadlineMs, withinDeadline } from '../http-deadline.js';
import type { Query } from '../queries.js';
import { redactSecrets, serverText } from '../redact.js';
import { typedRows } from '../sql/typed-rows.js';
import { checkClickHouseUrl, type ClickHouseTable } from './clickhouse-url.js';

export { checkClickHouseUrl, parseTable, type ClickHouseTable } from './clickhouse-url.js';

/**
 * Traces kept in ClickHouse by the OpenTelemetry Collector's ClickHouse
 * exporter: the leak model runs there, as the ClickHouse SQL of
 * queries/clickhouse/, over its traces table; only what the queries return
 * (aggregates and findings) leaves the database. The intermediate tables are
 * temporary tables of one session.
 */
/**
 * SQL semantics the queries are written for, as in DuckDB: an outer join's
 * missing side, a grouping set's rolled-up keys and an aggregate over no rows
 * (min, sum, argMin ... FILTER) are NULL, not the type's default (count stays
 * 0); a column's name means the column, not an alias of the same name. With
 * these, queries/model/ is SQL both engines read alike.
 */
export const CLICKHOUSE_SETTINGS = { join_use_nulls: 1, group_by_use_nulls: 1, prefer_column_name_to_alias: 1, aggregate_functions_null_for_empty: 1 } as const;

export type ClickHouseParams = Record<string, string | number | bigint | boolean | null | string[]>;

/** Each statement, its answer whole, within this long unless AFTERSTOP_HTTP_DEADLINE_MS says otherwise: a long report over a big table. */
export const CLICKHOUSE_DEADLINE_MS = 300_000;

/**
 * What @clickhouse/client logs, through afterstop's redaction: a warning as one line, cut, credentials
 * masked. Its errors are not logged (their text is the server's, which may echo the request and its
 * Authorization header): the error reaches afterstop, which says it once, redacted (report-source.ts).
 */
export class RedactingClickHouseLogger implements Logger {
  trace(): void {}
  debug(): void {}
  info(): void {}
  warn({ message, err }: { message: string; err?: Error }): void {
    process.stderr.write(`afterstop: ClickHouse client: ${serverText(err === undefined ? message : `${message} (${err.message})`)}\n`);
  }
  error(): void {}
}

export class ClickHouseSource {
  constructor(
    private readonly client: ClickHouseClient,
    readonly table: ClickHouseTable,
    /** Each statement, answer included, within this long (an overall deadline, not an idle timeout). */
    private readonly deadlineMs = httpDeadlineMs(CLICKHOUSE_DEADLINE_MS),
  ) {}

  /**
   * A client for a server's HTTP interface (`http://user:password@host:8123/`), with a session of its own, its
   * logging through afterstop's redaction. A URL the client cannot take is an InputError without the password.
   */
  static forUrl(url: string, table: ClickHouseTable): ClickHouseSource {
    checkClickHouseUrl(url);
    const deadlineMs = httpDeadlineMs(CLICKHOUSE_DEADLINE_MS);
    let client: ClickHouseClient;
    try {
      client = createClient({
        url,
        session_id: `afterstop-${randomUUID()}`,
        log: { LoggerClass: RedactingClickHouseLogger, level: ClickHouseLogLevel.WARN },
      });
    } catch (error) {
      throw new InputError(`--clickhouse ${redactSecrets(new URL(url).origin)}: ${serverText(error instanceof Error ? error.message : String(error))}`);
    }
    return new ClickHouseSource(client, table, deadlineMs);
  }

  /** A statement that returns nothing. */
  async run(q: Query, params: ClickHouseParams = {}): Promise<void> {
    await this.withinDeadline(q, (abort_signal) => this.client.command({ query: q.sql, query_params: this.bind(q, params), clickhouse_settings: CLICKHOUSE_SETTINGS, abort_signal }));
  }

  /** A query's rows; 64-bit integers as strings (ns times do not fit a JSON number). */
  async rows<T = Record<string, unknown>>(q: Query, params: ClickHouseParams = {}): Promise<T[]> {
    return this.withinDeadline(q, async (abort_signal) => {
      const result = await this.client.query({
        query: q.sql,
        query_params: this.bind(q, params),
        format: 'JSONEachRow',
        clickhouse_settings: { ...CLICKHOUSE_SETTINGS, output_format_json_quote_64bit_integers: 1 },
        abort_signal,
      });
      return result.json<T>();
    });
  }

  /** One request, its answer read whole, within the deadline; past it, an error that says so (the request is aborted). */
  private withinDeadline<T>(q: Query, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withinDeadline(this.deadlineMs, request, (within, cause) => new Error(`no whole answer to ${q.file} ${within}`, { cause }));
  }

  /** A query's rows as its header declares them (its -- @column lines; analyzer/sql/typed-rows.ts). */
  async typedRows<T>(q: Query, params: ClickHouseParams = {}): Promise<T[]> {
    return typedRows<T>(q, await this.rows(q, params));
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** The table's name and the query's declared parameters, each of them given. */
  private bind(q: Query, params: ClickHouseParams): Record<string, unknown> {
    const bound: Record<string, unknown> = {};
    for (const p of q.params) {
      if (p.name === 'database' || p.name === 'table') bound[p.name] = this.table[p.name];
      else if (!(p.name in params)) throw new Error(`${q.file}: parameter ${p.name} not given`);
      else bound[p.name] = typeof params[p.name] === 'bigint' ? String(params[p.name]) : params[p.name];
    }
    return bound;
  }
}
