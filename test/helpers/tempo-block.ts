import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { kindNumber, statusNumber, type AnyValue, type KeyValue, type OtlpRequest } from './otlp-json.js';

/**
 * Writes Grafana Tempo blocks (vParquet4 and vParquet5) from OTLP/JSON trace
 * files, following Tempo's schema (tempodb/encoding/vparquet4/schema.go and
 * vparquet5): a trace per row, resource spans `rs`, scope spans `ss`, ids as
 * bytes, attributes as typed value lists, the well-known attributes and the
 * dedicated ones taken out of `Attrs` into their columns; beside it the
 * block's `meta.json`. DuckDB writes the Parquet (its lists carry the LIST
 * annotation, as parquet-go writes vParquet4; vParquet5 drops it, which reads
 * the same).
 */
export interface TempoBlockOptions {
  version: 'vParquet4' | 'vParquet5';
  /** Span attributes in dedicated columns, in meta.json's order (String01, String02, ...). */
  dedicatedSpan?: string[];
  /** Resource attributes in dedicated columns. */
  dedicatedResource?: string[];
  tenant?: string;
  /** vParquet5 as its early previews wrote it: dedicated columns as scalars, not lists. */
  previewScalars?: boolean;
}

interface Attribute {
  Key: string;
  IsArray: boolean;
  Value: string[];
  ValueInt: string[];
  ValueDouble: number[];
  ValueBool: boolean[];
  ValueUnsupported: string | null;
}

function attribute(kv: KeyValue): Attribute {
  const a: Attribute = { Key: kv.key, IsArray: false, Value: [], ValueInt: [], ValueDouble: [], ValueBool: [], ValueUnsupported: null };
  const put = (v: AnyValue): boolean => {
    if (v.stringValue !== undefined) a.Value.push(v.stringValue);
    else if (v.intValue !== undefined) a.ValueInt.push(String(v.intValue));
    else if (v.doubleValue !== undefined) a.ValueDouble.push(Number(v.doubleValue));
    else if (v.boolValue !== undefined) a.ValueBool.push(v.boolValue);
    else return false;
    return true;
  };
  const v = kv.value ?? {};
  if (v.arrayValue !== undefined) {
    const values = v.arrayValue.values ?? [];
    const kinds = new Set(values.map((x) => Object.keys(x)[0]));
    if (kinds.size <= 1 && values.every(put)) a.IsArray = true;
    else Object.assign(a, { Value: [], ValueInt: [], ValueDouble: [], ValueBool: [], ValueUnsupported: JSON.stringify(v) });
  } else if (!put(v)) a.ValueUnsupported = JSON.stringify(v);
  return a;
}

const COLUMN = (i: number): string => `String${String(i + 1).padStart(2, '0')}`;

/** Take the dedicated (string) attributes out of `kvs` into String01..; what is left stays an attribute. */
function dedicate(kvs: KeyValue[], names: string[], v5: boolean): { rest: KeyValue[]; columns: Record<string, unknown> } {
  const columns: Record<string, unknown> = {};
  const rest: KeyValue[] = [];
  for (const kv of kvs) {
    const i = names.indexOf(kv.key);
    if (i >= 0 && kv.value?.stringValue !== undefined) columns[COLUMN(i)] = v5 ? [kv.value.stringValue] : kv.value.stringValue;
    else rest.push(kv);
  }
  return { rest, columns };
}

const ATTR = 'STRUCT(Key VARCHAR, IsArray BOOLEAN, Value VARCHAR[], ValueInt BIGINT[], ValueDouble DOUBLE[], ValueBool BOOLEAN[], ValueUnsupported VARCHAR)';

function dedicatedType(count: number, v5: boolean): string {
  return `STRUCT(${Array.from({ length: count }, (_, i) => `${COLUMN(i)} ${v5 ? 'VARCHAR[]' : 'VARCHAR'}`).join(', ')})`;
}

/** Write a block of the traces in `files` under `root/<tenant>/<block id>/`; its folder is returned. */
export async function writeTempoBlock(root: string, files: string[], options: TempoBlockOptions): Promise<string> {
  const v5 = options.version === 'vParquet5';
  const listColumns = v5 && options.previewScalars !== true;
  const spanNames = options.dedicatedSpan ?? [];
  const resourceNames = options.dedicatedResource ?? [];
  // vParquet4 has all ten columns; vParquet5 only those in use (none: no group at all).
  const spanCount = v5 ? spanNames.length : 10;
  const resourceCount = v5 ? resourceNames.length : 10;
  const traces = new Map<string, { rs: unknown[]; start: bigint; end: bigint; rootService: string; rootName: string }>();
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const request = JSON.parse(line) as OtlpRequest;
      for (const rs of request.resourceSpans ?? []) {
        const resourceAttrs = rs.resource?.attributes ?? [];
        const service = resourceAttrs.find((a) => a.key === 'service.name')?.value?.stringValue ?? '';
        const res = dedicate(
          resourceAttrs.filter((a) => a.key !== 'service.name'),
          resourceNames,
          listColumns,
        );
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const start = BigInt(s.startTimeUnixNano);
            const end = BigInt(s.endTimeUnixNano);
            let trace = traces.get(s.traceId);
            if (trace === undefined) traces.set(s.traceId, (trace = { rs: [], start, end, rootService: '', rootName: '' }));
            if (start < trace.start) trace.start = start;
            if (end > trace.end) trace.end = end;
            if (!s.parentSpanId) Object.assign(trace, { rootService: service, rootName: s.name ?? '' });
            let attrs = s.attributes ?? [];
            const http: Record<string, unknown> = {};
            if (!v5) {
              // vParquet4's well-known columns (string http.method and http.url, int http.status_code).
              for (const [key, column] of [
                ['http.method', 'HttpMethod'],
                ['http.url', 'HttpUrl'],
              ] as const) {
                const kv = attrs.find((a) => a.key === key && a.value?.stringValue !== undefined);
                if (kv) (http[column] = kv.value!.stringValue), (attrs = attrs.filter((a) => a !== kv));
              }
              const code = attrs.find((a) => a.key === 'http.status_code' && a.value?.intValue !== undefined);
              if (code) (http['HttpStatusCode'] = Number(code.value!.intValue)), (attrs = attrs.filter((a) => a !== code));
            }
            const sp = dedicate(attrs, spanNames, listColumns);
            const span = {
              SpanID: s.spanId,
              ParentSpanID: s.parentSpanId ?? '',
              ParentID: 0,
              NestedSetLeft: 0,
              NestedSetRight: 0,
              Name: s.name ?? '',
              Kind: kindNumber(s.kind),
              TraceState: s.traceState ?? '',
              StartTimeUnixNano: start.toString(),
              DurationNano: (end - start).toString(),
              StatusCode: statusNumber(s.status?.code),
              StatusMessage: s.status?.message ?? '',
              Attrs: sp.rest.map(attribute),
              DroppedAttributesCount: 0,
              Events: (s.events ?? []).map((e) => ({ TimeSinceStartNano: (BigInt(e.timeUnixNano) - start).toString(), Name: e.name ?? '', Attrs: (e.attributes ?? []).map(attribute), DroppedAttributesCount: 0 })),
              DroppedEventsCount: 0,
              Links: [],
              DroppedLinksCount: 0,
              ...http,
              ...(spanCount > 0 ? { DedicatedAttributes: sp.columns } : {}),
            };
            trace.rs.push({
              Resource: { Attrs: res.rest.map(attribute), DroppedAttributesCount: 0, ServiceName: service, ...(resourceCount > 0 ? { DedicatedAttributes: res.columns } : {}) },
              ss: [{ Scope: { Name: ss.scope?.name ?? '', Version: ss.scope?.version ?? '', Attrs: [], DroppedAttributesCount: 0 }, Spans: [span] }],
            });
          }
        }
      }
    }
  }
  const blockId = randomUUID();
  const tenant = options.tenant ?? 'single-tenant';
  const dir = path.join(root, tenant, blockId);
  fs.mkdirSync(dir, { recursive: true });
  const rows = [...traces.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, t]) => ({
      TraceID: id,
      TraceIDText: id.replace(/^0+/, ''),
      StartTimeUnixNano: t.start.toString(),
      EndTimeUnixNano: t.end.toString(),
      DurationNano: (t.end - t.start).toString(),
      RootServiceName: t.rootService,
      RootSpanName: t.rootName,
      rs: t.rs,
    }));
  const json = path.join(dir, 'rows.jsonl');
  fs.writeFileSync(json, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const event = `STRUCT(TimeSinceStartNano UBIGINT, "Name" VARCHAR, Attrs ${ATTR}[], DroppedAttributesCount INTEGER)`;
  const http = v5 ? '' : ', HttpMethod VARCHAR, HttpUrl VARCHAR, HttpStatusCode BIGINT';
  const spanDedicated = spanCount > 0 ? `, DedicatedAttributes ${dedicatedType(spanCount, listColumns)}` : '';
  const resourceDedicated = resourceCount > 0 ? `, DedicatedAttributes ${dedicatedType(resourceCount, listColumns)}` : '';
  const span = `STRUCT(SpanID VARCHAR, ParentSpanID VARCHAR, ParentID INTEGER, NestedSetLeft INTEGER, NestedSetRight INTEGER, "Name" VARCHAR, Kind BIGINT, TraceState VARCHAR,
    StartTimeUnixNano UBIGINT, DurationNano UBIGINT, StatusCode BIGINT, StatusMessage VARCHAR, Attrs ${ATTR}[], DroppedAttributesCount INTEGER,
    Events ${event}[], DroppedEventsCount INTEGER, Links STRUCT(TraceID VARCHAR)[], DroppedLinksCount INTEGER${http}${spanDedicated})`;
  const rs = `STRUCT(Resource STRUCT(Attrs ${ATTR}[], DroppedAttributesCount INTEGER, ServiceName VARCHAR${resourceDedicated}),
    ss STRUCT(Scope STRUCT("Name" VARCHAR, Version VARCHAR, Attrs ${ATTR}[], DroppedAttributesCount INTEGER), Spans ${span}[])[])[]`;
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    // Ids go in as hex text and are written as bytes.
    await connection.run(
      `COPY (
        SELECT unhex(TraceID) AS TraceID, TraceIDText, StartTimeUnixNano, EndTimeUnixNano, DurationNano, RootServiceName, RootSpanName,
          list_transform(rs, r -> struct_update(r, ss := list_transform(r.ss, s -> struct_update(s, Spans := list_transform(s.Spans,
            sp -> struct_update(sp, SpanID := unhex(sp.SpanID), ParentSpanID := unhex(sp.ParentSpanID))))))) AS rs
        FROM read_json($json, format = 'newline_delimited', columns = {TraceID: 'VARCHAR', TraceIDText: 'VARCHAR', StartTimeUnixNano: 'UBIGINT',
          EndTimeUnixNano: 'UBIGINT', DurationNano: 'UBIGINT', RootServiceName: 'VARCHAR', RootSpanName: 'VARCHAR', rs: $rs})
      ) TO '${path.join(dir, 'data.parquet').replaceAll("'", "''")}' (FORMAT parquet)`,
      { json, rs },
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  fs.rmSync(json);
  const min = rows.reduce((m, r) => (BigInt(r.StartTimeUnixNano) < m ? BigInt(r.StartTimeUnixNano) : m), BigInt(rows[0]?.StartTimeUnixNano ?? 0));
  const max = rows.reduce((m, r) => (BigInt(r.EndTimeUnixNano) > m ? BigInt(r.EndTimeUnixNano) : m), 0n);
  const iso = (ns: bigint): string => new Date(Number(ns / 1_000_000n)).toISOString();
  fs.writeFileSync(
    path.join(dir, 'meta.json'),
    JSON.stringify({
      format: options.version,
      blockID: blockId,
      tenantID: tenant,
      startTime: iso(min),
      endTime: iso(max),
      totalObjects: rows.length,
      size: fs.statSync(path.join(dir, 'data.parquet')).size,
      compactionLevel: 0,
      encoding: 'none',
      bloomShards: 1,
      dedicatedColumns: [...resourceNames.map((n) => ({ s: 'resource', n })), ...spanNames.map((n) => ({ n }))],
    }),
  );
  return dir;
}
