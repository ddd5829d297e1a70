import { query, type Query } from '../queries.js';
import type { ClickHouseSource } from './source.js';

/**
 * The shapes of the Collector ClickHouse exporter's traces table that the
 * leak model reads: attributes as `Map(LowCardinality(String), String)` (the
 * default; values as text) or as `JSON` (the exporter's `json` option; values
 * typed, dotted keys stored as paths), and tables from before the exporter had
 * a ScopeName column. queries/clickhouse/spans.sql is written for the Map
 * schema; {@link spansQuery} rewrites its attribute lookups for the others.
 */
export interface TracesSchema {
  attributes: 'map' | 'json';
  scopeColumn: boolean;
}

export class NoTracesTableError extends Error {
  override readonly name = 'NoTracesTableError';
}

export async function tracesSchema(source: ClickHouseSource): Promise<TracesSchema> {
  const columns = await source.rows<{ name: string; type: string }>(query('clickhouse/traces-columns'));
  if (columns.length === 0) throw new NoTracesTableError(`no table ${source.table.database}.${source.table.table}`);
  const type = (name: string): string | undefined => columns.find((c) => c.name === name)?.type;
  const missing = ['TraceId', 'SpanId', 'ParentSpanId', 'SpanName', 'SpanKind', 'ServiceName', 'SpanAttributes', 'Timestamp', 'Duration', 'StatusCode', 'StatusMessage'].filter((c) => type(c) === undefined);
  if (missing.length > 0) throw new NoTracesTableError(`${source.table.database}.${source.table.table} is not an OpenTelemetry Collector ClickHouse exporter traces table (no ${missing.join(', ')})`);
  return { attributes: /^JSON\b/.test(type('SpanAttributes') ?? '') ? 'json' : 'map', scopeColumn: type('ScopeName') !== undefined };
}

/**
 * spans.sql for the table's schema. JSON attributes: an attribute by name is
 * its JSON path's value as text ('' when absent, as a Map gives it); an array
 * attribute read as a list is its path's value as JSON; the keys are the
 * table's paths. Output attributes whose names hold a number (OpenLLMetry's
 * gen_ai.completion.N.tool_calls.M.id) cannot be looked up by a computed path
 * in ClickHouse: with JSON attributes only the AI SDK's ai.response.toolCalls
 * is read for the tool calls a model asked for.
 */
export function spansQuery(schema: TracesSchema): Query {
  const q = query('clickhouse/spans');
  let sql = q.sql;
  if (!schema.scopeColumn) sql = sql.replace("nullIf(ScopeName, '') AS scope", "nullIf(SpanAttributes['otel.scope.name'], '') AS scope");
  if (schema.attributes === 'json') {
    sql = sql
      .replace(/JSONExtract\(a\['([^']+)'\], 'Array\(String\)'\)/g, "JSONExtract(ifNull(toJSONString(getSubcolumn(a, '$1')), '[]'), 'Array(String)')")
      .replace(/SpanAttributes\['([^']+)'\]/g, "toString(getSubcolumn(SpanAttributes, '$1'))")
      .replace(/\ba\['([^']+)'\]/g, "toString(getSubcolumn(a, '$1'))")
      .replace(/\be\['([^']+)'\]/g, "toString(getSubcolumn(e, '$1'))")
      .replace('mapKeys(SpanAttributes)', 'JSONAllPaths(SpanAttributes)')
      .replace('CAST(a AS Map(String, String))', "map('ai.response.toolCalls', toString(getSubcolumn(a, 'ai.response.toolCalls')))");
  }
  return { ...q, sql };
}
