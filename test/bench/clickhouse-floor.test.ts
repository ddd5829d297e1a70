import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { columnsRead, ddlColumns, floorScanSql } from '../../bench/clickhouse-floor.js';

const DDL = fs.readFileSync(fileURLToPath(new URL('../fixtures/clickhouse/otel_traces.sql', import.meta.url)), 'utf8');
const SPANS_SQL = fs.readFileSync(fileURLToPath(new URL('../../analyzer/queries/clickhouse/spans.sql', import.meta.url)), 'utf8');

describe("the ClickHouse bench's floor: what the leak model reads of otel_traces", () => {
  it("reads the exporter's columns from its DDL, Nested ones by their arrays, maps told apart", () => {
    const columns = ddlColumns(DDL);
    expect(columns.map((c) => c.name)).toEqual([
      'Timestamp',
      'TraceId',
      'SpanId',
      'ParentSpanId',
      'TraceState',
      'SpanName',
      'SpanKind',
      'ServiceName',
      'ResourceAttributes',
      'ScopeName',
      'ScopeVersion',
      'SpanAttributes',
      'Duration',
      'StatusCode',
      'StatusMessage',
      'Events.Timestamp',
      'Events.Name',
      'Events.Attributes',
      'Links.TraceId',
      'Links.SpanId',
      'Links.TraceState',
      'Links.Attributes',
    ]);
    expect(columns.filter((c) => c.type === 'map').map((c) => c.name)).toEqual(['ResourceAttributes', 'SpanAttributes']);
    expect(columns.filter((c) => c.type === 'map-array').map((c) => c.name)).toEqual(['Events.Attributes', 'Links.Attributes']);
  });

  it('follows keys through aliases and lambdas, and tells a map used whole from one only looked into', () => {
    const sql = `-- ScopeName in a comment is not read
      SELECT lower(TraceId) AS t, SpanAttributes AS a, a['k1'], ResourceAttributes['r1'], ResourceAttributes [ 'r2' ], \`Events.Attributes\` AS ea,
        arrayMap(e -> e['x'], ea), arrayExists((n, e) -> n = 'exception' AND e['y'] = '', \`Events.Name\`, ea), CAST(a AS Map(String, String)), 'StatusCode'
      FROM t`;
    const reads = columnsRead(sql, ddlColumns(DDL));
    expect(reads).toEqual([
      { column: 'TraceId', type: 'other', whole: true, keys: [] },
      { column: 'ResourceAttributes', type: 'map', whole: false, keys: ['r1', 'r2'] },
      { column: 'SpanAttributes', type: 'map', whole: true, keys: ['k1'] },
      { column: 'Events.Name', type: 'other', whole: true, keys: [] },
      { column: 'Events.Attributes', type: 'map-array', whole: false, keys: ['x', 'y'] },
    ]);
    expect(floorScanSql(reads, 'otel.otel_traces')).toBe(
      [
        'SELECT',
        '  max(TraceId),',
        "  max(ResourceAttributes['r1']),",
        "  max(ResourceAttributes['r2']),",
        '  max(mapKeys(SpanAttributes)),',
        '  max(mapValues(SpanAttributes)),',
        "  max(SpanAttributes['k1']),",
        '  max(`Events.Name`),',
        "  max(arrayMap(m -> m['x'], `Events.Attributes`)),",
        "  max(arrayMap(m -> m['y'], `Events.Attributes`))",
        'FROM otel.otel_traces',
      ].join('\n'),
    );
  });

  it('finds in spans.sql every column and key it reads of the table', () => {
    const reads = columnsRead(SPANS_SQL, ddlColumns(DDL));
    expect(reads.map((r) => r.column)).toEqual([
      'Timestamp',
      'TraceId',
      'SpanId',
      'ParentSpanId',
      'SpanName',
      'SpanKind',
      'ServiceName',
      'ResourceAttributes',
      'ScopeName',
      'SpanAttributes',
      'Duration',
      'StatusCode',
      'StatusMessage',
      'Events.Name',
      'Events.Attributes',
    ]);
    const of = (column: string) => reads.find((r) => r.column === column)!;
    expect(of('ResourceAttributes')).toMatchObject({ whole: false, keys: ['service.instance.id', 'host.name', 'host.id', 'process.pid'] });
    expect(of('Events.Attributes')).toMatchObject({ whole: false, keys: ['exception.message', 'exception.type'] });
    // Its keys listed (mapKeys) and the map handed on whole for a model call's outputs: read whole, and each key it extracts.
    expect(of('SpanAttributes').whole).toBe(true);
    const keys = [...SPANS_SQL.matchAll(/\ba\['([^']+)'\]/g)].map((m) => m[1]);
    expect(of('SpanAttributes').keys).toEqual([...new Set(keys)]);
  });
});
