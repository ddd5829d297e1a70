import { randomUUID } from 'node:crypto';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { Query } from '../queries.js';
import { typedRows } from '../sql/typed-rows.js';

/**
 * Traces kept in ClickHouse by the OpenTelemetry Collector's ClickHouse
 * exporter: the leak model runs there, as the ClickHouse SQL of
 * queries/clickhouse/, over its traces table; only what the queries return
 * (aggregates and findings) leaves the database. The intermediate tables are
 * temporary tables of one session.
 */
export interface ClickHouseTable {
  database: string;
  table: string;
}

/** `otel_traces` or `otel.otel_traces`: the exporter's defaults are database `otel`, table `otel_traces`. */
export function parseTable(name: string): ClickHouseTable {
  const [first, second] = name.split('.', 2);
  return second === undefined ? { database: 'otel', table: first ?? 'otel_traces' } : { database: first ?? 'otel', table: second };
}

/**
 * SQL semantics the queries are written for, as in DuckDB: an outer join's
 * missing side, a grouping set's rolled-up keys and an aggregate over no rows
 * (min, sum, argMin ... FILTER) are NULL, not the type's default (count stays
 * 0); a column's name means the column, not an alias of the same name. With
 * these, queries/model/ is SQL both engines read alike.
 */
export const CLICKHOUSE_SETTINGS = { join_use_nulls: 1, group_by_use_nulls: 1, prefer_column_name_to_alias: 1, aggregate_functions_null_for_empty: 1 } as const;

export type ClickHouseParams = Record<string, string | number | bigint | boolean | null | string[]>;

export class ClickHouseSource {
  constructor(
    private readonly client: ClickHouseClient,
    readonly table: ClickHouseTable,
  ) {}

  /** A client for a server's HTTP interface (`http://user:password@host:8123/`), with a session of its own. */
  static forUrl(url: string, table: ClickHouseTable): ClickHouseSource {
    return new ClickHouseSource(createClient({ url, session_id: `afterstop-${randomUUID()}` }), table);
  }

  /** A statement that returns nothing. */
  async run(q: Query, params: ClickHouseParams = {}): Promise<void> {
    await this.client.command({ query: q.sql, query_params: this.bind(q, params), clickhouse_settings: CLICKHOUSE_SETTINGS });
  }

  /** A query's rows; 64-bit integers as strings (ns times do not fit a JSON number). */
  async rows<T = Record<string, unknown>>(q: Query, params: ClickHouseParams = {}): Promise<T[]> {
    const result = await this.client.query({
      query: q.sql,
      query_params: this.bind(q, params),
      format: 'JSONEachRow',
      clickhouse_settings: { ...CLICKHOUSE_SETTINGS, output_format_json_quote_64bit_integers: 1 },
    });
    return result.json<T>();
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
