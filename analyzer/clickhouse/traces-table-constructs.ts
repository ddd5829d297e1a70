import { literalText } from '../sql/dialect.js';
import type { ExtraConstructs } from '../sql/render-query.js';

/**
 * The shapes of the Collector ClickHouse exporter's traces table that the
 * leak model reads: attributes as `Map(LowCardinality(String), String)` (the
 * default; values as text) or as `JSON` (the exporter's `json` option; values
 * typed, dotted keys stored as paths), and tables from before the exporter had
 * a ScopeName column.
 */
export interface TracesSchema {
  attributes: 'map' | 'json';
  scopeColumn: boolean;
  /** The table has the exporter's ResourceAttributes (every exporter's table does; a hand-made one may not). */
  resourceColumn: boolean;
}

/** The exporter's default: the shape queries/clickhouse/spans.sql is committed for. */
export const DEFAULT_TRACES_SCHEMA: TracesSchema = { attributes: 'map', scopeColumn: true, resourceColumn: true };

const key = (sql: string): string => {
  const text = literalText(sql);
  if (text === undefined || /['\\]/.test(text)) throw new Error(`an attribute's key must be a plain literal, not ${sql}`);
  return text;
};

/**
 * What queries/model/spans.sql reads of an attribute map, for a table's shape.
 * With JSON attributes an attribute by name is its JSON path's value as text
 * ('' when absent, as a Map gives it); an array attribute read as a list is
 * its path's value as JSON; the keys are the table's paths. Output attributes
 * whose names hold a number (OpenLLMetry's gen_ai.completion.N.tool_calls.M.id)
 * cannot be looked up by a computed path in ClickHouse: with JSON attributes
 * only the AI SDK's ai.response.toolCalls is read for the tool calls a model
 * asked for.
 */
export function tracesTableConstructs(schema: TracesSchema): ExtraConstructs {
  const json = schema.attributes === 'json';
  const attr = (m: string, k: string): string => (json ? `toString(getSubcolumn(${m}, '${k}'))` : `${m}['${k}']`);
  return {
    // an attribute's value as text, '' when the span lacks it
    attr: { arity: 2, render: ([m = '', k = '']) => attr(m, key(k)) },
    // the span's attribute as text, NULL when absent (fragments.sql's span_attribute_columns)
    span_attr: { arity: 1, render: ([k = '']) => `nullIf(${attr('a', key(k))}, '')` },
    // an array attribute (written by the exporter as JSON text) as a list of strings
    attr_list: {
      arity: 2,
      render: ([m = '', k = '']) => (json ? `JSONExtract(ifNull(toJSONString(getSubcolumn(${m}, '${key(k)}')), '[]'), 'Array(String)')` : `JSONExtract(${m}['${key(k)}'], 'Array(String)')`),
    },
    // the attribute names
    attr_keys: { arity: 1, render: ([m = '']) => (json ? `JSONAllPaths(${m})` : `mapKeys(${m})`) },
    // the attributes as a Map(String, String), for the output attributes of a model call
    attr_map: {
      arity: 1,
      render: ([m = '']) => (json ? `map('ai.response.toolCalls', toString(getSubcolumn(${m}, 'ai.response.toolCalls')))` : `CAST(${m} AS Map(String, String))`),
    },
    // a resource attribute as text, NULL when absent (the process a span's resource names, issue 49)
    resource_attr: {
      arity: 1,
      render: ([k = '']) => (schema.resourceColumn ? `nullIf(${attr('ResourceAttributes', key(k))}, '')` : 'CAST(NULL AS Nullable(String))'),
    },
    // the instrumentation scope's name ('' for none)
    scope_name: { arity: 0, render: () => (schema.scopeColumn ? "nullIf(ScopeName, '')" : `nullIf(${attr('SpanAttributes', 'otel.scope.name')}, '')`) },
  };
}
