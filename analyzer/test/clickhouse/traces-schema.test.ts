import { describe, expect, it } from 'vitest';
import { parseTable } from '../../clickhouse/source.js';
import { spansQuery } from '../../clickhouse/traces-schema.js';
import { query } from '../../queries.js';

/** spans.sql rendered for the exporter's other table shapes (the report test runs them against the engine). */
describe('spansQuery', () => {
  it('is spans.sql itself for the default schema (Map attributes, ScopeName)', () => {
    const sql = spansQuery({ attributes: 'map', scopeColumn: true, resourceColumn: true }).sql;
    expect(sql).toContain("a['afterstop.run.id']");
    expect(sql).toContain("nullIf(ScopeName, '') AS scope");
  });

  it('is the committed file for the default shape, and a rendering of the model file for the others', () => {
    expect(spansQuery({ attributes: 'map', scopeColumn: true, resourceColumn: true }).sql).toBe(query('clickhouse/spans').sql);
    const noScope = spansQuery({ attributes: 'map', scopeColumn: false, resourceColumn: true }).sql;
    expect(noScope).not.toContain('ScopeName');
    expect(noScope).toContain("nullIf(SpanAttributes['otel.scope.name'], '') AS scope");
  });

  it("reads a span's process from ResourceAttributes, and none from a table without them (issue 49)", () => {
    expect(query('clickhouse/spans').sql).toContain("nullIf(ResourceAttributes['service.instance.id'], '')");
    const noResource = spansQuery({ attributes: 'map', scopeColumn: true, resourceColumn: false }).sql;
    expect(noResource).not.toContain('ResourceAttributes');
    expect(noResource).toContain('CAST(NULL AS Nullable(String))');
  });

  it('with JSON attributes, leaves no Map lookup behind', () => {
    const sql = spansQuery({ attributes: 'json', scopeColumn: false, resourceColumn: true }).sql;
    expect(sql).not.toMatch(/\b[ae]\['/);
    expect(sql).not.toMatch(/SpanAttributes\['/);
    expect(sql).not.toContain('mapKeys(');
    expect(sql).not.toContain('CAST(a AS Map');
    expect(sql).toContain("toString(getSubcolumn(a, 'afterstop.run.id'))");
    expect(sql).toContain("JSONExtract(ifNull(toJSONString(getSubcolumn(a, 'afterstop.repair.tool_call_ids')), '[]'), 'Array(String)')");
    expect(sql).toContain("toString(getSubcolumn(SpanAttributes, 'otel.scope.name'))");
  });

  it('names a table as the exporter does by default', () => {
    expect(parseTable('otel_traces')).toEqual({ database: 'otel', table: 'otel_traces' });
    expect(parseTable('traces.spans_v2')).toEqual({ database: 'traces', table: 'spans_v2' });
  });
});
