import * as fs from 'node:fs';
import { kindNumber, SPAN_KINDS, STATUS_CODES, statusNumber, type AnyValue, type KeyValue, type OtlpRequest } from './otlp-json.js';

/**
 * OTLP/JSON trace files as the OpenTelemetry Collector's ClickHouse exporter
 * writes them into `otel_traces` (exporter/clickhouseexporter): a row per
 * span, events and links as Nested columns. `spelling` picks the enum names:
 * `new` (`Internal`, `Error`: the exporter since v0.108) or `old`
 * (`SPAN_KIND_INTERNAL`, `STATUS_CODE_ERROR`). `schema`: `map` (attributes as
 * a Map of strings, pcommon's AsString: arrays and maps as JSON), `json` (the
 * exporter's json option: attributes as their raw values, json.Marshal of
 * AsRaw), `oldest` (Map attributes, no ScopeName column: the scope in
 * SpanAttributes as otel.scope.name).
 */
export type TracesSchemaName = 'map' | 'json' | 'oldest';

/** The exporter's DDL (test/fixtures/clickhouse/otel_traces.sql) for `schema`, as table otel.`table`. */
export function tracesTableDdl(ddl: string, table: string, schema: TracesSchemaName): string {
  let sql = ddl.replace('CREATE TABLE IF NOT EXISTS otel.otel_traces', `CREATE TABLE IF NOT EXISTS otel.${table}`);
  if (schema === 'json') sql = sql.replaceAll('Map(LowCardinality(String), String)', 'JSON');
  if (schema === 'oldest') sql = sql.replace(/\s+ScopeName String CODEC\(ZSTD\(1\)\),\s+ScopeVersion String CODEC\(ZSTD\(1\)\),/, '').replace('Duration UInt64 CODEC(T64, ZSTD(1))', 'Duration Int64 CODEC(ZSTD(1))');
  return sql;
}

/** pcommon.Value.AsString: scalars as text, arrays and maps as JSON of their raw values. */
function raw(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(raw);
  if (v.kvlistValue !== undefined) return Object.fromEntries((v.kvlistValue.values ?? []).map((kv) => [kv.key, raw(kv.value ?? {})]));
  return v.bytesValue ?? '';
}
const asString = (v: AnyValue = {}): string => {
  const r = raw(v);
  return typeof r === 'string' ? r : JSON.stringify(r);
};
const attrs = (kvs: KeyValue[] = []): Record<string, string> => Object.fromEntries(kvs.map((kv) => [kv.key, asString(kv.value)]));
const rawAttrs = (kvs: KeyValue[] = []): Record<string, unknown> => Object.fromEntries(kvs.map((kv) => [kv.key, raw(kv.value ?? {})]));

const KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'];
const STATUS = ['Unset', 'Ok', 'Error'];

/** DateTime64(9) as ClickHouse parses it from JSON: 'YYYY-MM-DD hh:mm:ss.nnnnnnnnn' (UTC). */
function timestamp(ns: bigint): string {
  const seconds = ns / 1_000_000_000n;
  const date = new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  return `${date}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
}

export function otelTracesRows(files: string[], spelling: 'new' | 'old' = 'new', schema: TracesSchemaName = 'map'): Record<string, unknown>[] {
  const attributes = schema === 'json' ? rawAttrs : attrs;
  const rows: Record<string, unknown>[] = [];
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      for (const rs of (JSON.parse(line) as OtlpRequest).resourceSpans ?? []) {
        const resource = attributes(rs.resource?.attributes);
        const service = attrs(rs.resource?.attributes)['service.name'] ?? '';
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const start = BigInt(s.startTimeUnixNano);
            const events = s.events ?? [];
            rows.push({
              Timestamp: timestamp(start),
              TraceId: s.traceId,
              SpanId: s.spanId,
              ParentSpanId: s.parentSpanId ?? '',
              TraceState: s.traceState ?? '',
              SpanName: s.name ?? '',
              SpanKind: (spelling === 'new' ? KINDS : SPAN_KINDS)[kindNumber(s.kind)],
              ServiceName: service,
              ResourceAttributes: resource,
              ...(schema === 'oldest' ? {} : { ScopeName: ss.scope?.name ?? '', ScopeVersion: ss.scope?.version ?? '' }),
              SpanAttributes: {
                ...attributes(s.attributes),
                ...(schema === 'oldest' && ss.scope?.name ? { 'otel.scope.name': ss.scope.name, 'otel.scope.version': ss.scope.version ?? '' } : {}),
              },
              Duration: (BigInt(s.endTimeUnixNano) - start).toString(),
              StatusCode: (spelling === 'new' ? STATUS : STATUS_CODES)[statusNumber(s.status?.code)],
              StatusMessage: s.status?.message ?? '',
              'Events.Timestamp': events.map((e) => timestamp(BigInt(e.timeUnixNano))),
              'Events.Name': events.map((e) => e.name ?? ''),
              'Events.Attributes': events.map((e) => attributes(e.attributes)),
              'Links.TraceId': [],
              'Links.SpanId': [],
              'Links.TraceState': [],
              'Links.Attributes': [],
            });
          }
        }
      }
    }
  }
  return rows;
}
