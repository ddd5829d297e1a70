import { query, type Query } from '../queries.js';
import { renderModelFile } from '../sql/model-queries.js';
import type { ClickHouseSource } from './source.js';
import { DEFAULT_TRACES_SCHEMA, tracesTableConstructs, type TracesSchema } from './traces-table-constructs.js';

export type { TracesSchema } from './traces-table-constructs.js';

export class NoTracesTableError extends Error {
  override readonly name = 'NoTracesTableError';
}

export async function tracesSchema(source: ClickHouseSource): Promise<TracesSchema> {
  const columns = await source.typedRows<{ name: string; type: string }>(query('clickhouse/traces-columns'));
  if (columns.length === 0) throw new NoTracesTableError(`no table ${source.table.database}.${source.table.table}`);
  const type = (name: string): string | undefined => columns.find((c) => c.name === name)?.type;
  const missing = ['TraceId', 'SpanId', 'ParentSpanId', 'SpanName', 'SpanKind', 'ServiceName', 'SpanAttributes', 'Timestamp', 'Duration', 'StatusCode', 'StatusMessage'].filter((c) => type(c) === undefined);
  if (missing.length > 0) throw new NoTracesTableError(`${source.table.database}.${source.table.table} is not an OpenTelemetry Collector ClickHouse exporter traces table (no ${missing.join(', ')})`);
  return {
    attributes: /^JSON\b/.test(type('SpanAttributes') ?? '') ? 'json' : 'map',
    scopeColumn: type('ScopeName') !== undefined,
    resourceColumn: type('ResourceAttributes') !== undefined,
  };
}

/**
 * spans.sql for the table's shape: the committed file for the exporter's
 * default, else queries/model/spans.sql rendered with the shape's attribute
 * lookups (traces-table-constructs.ts).
 */
export function spansQuery(schema: TracesSchema): Query {
  const committed = query('clickhouse/spans');
  if (schema.attributes === DEFAULT_TRACES_SCHEMA.attributes && schema.scopeColumn === DEFAULT_TRACES_SCHEMA.scopeColumn && schema.resourceColumn === DEFAULT_TRACES_SCHEMA.resourceColumn) return committed;
  return { ...committed, sql: renderModelFile('spans', 'clickhouse', tracesTableConstructs(schema)) };
}
