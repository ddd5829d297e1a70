import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, projectRoot, runScript } from './child.js';
import { columnsRead, ddlColumns, floorScanSql, type ColumnRead } from './clickhouse-floor.js';
import { generateTraces } from './generate-traces.js';

/**
 * The leak model inside ClickHouse (chdb, embedded, its data on disk) over
 * the OpenTelemetry Collector exporter's otel_traces table, loaded with the
 * analyzer bench's generated traces, against a floor measured in the same
 * run: a bare scan of what the model reads of that table (clickhouse-floor.ts).
 * Each measurement in its own process (its peak memory is its own), the two
 * alternating, round after round; the figures are medians.
 */
export interface ChdbMeasurement {
  seconds: number;
  /** CPU time of the process, every thread (ClickHouse's are the process's): less moved by other work on the machine than wall time. */
  cpuSeconds: number;
  peakRssMb: number;
}

export interface ClickHouseBench {
  spans: number;
  rounds: number;
  /** The OTLP/JSON loaded into the table (setup, not measured against anything), and whether this run did it or found it loaded. */
  load: { seconds: number; cached: boolean; tableMb: number; inputMb: number };
  /** The leak report, as `afterstop leak-report --clickhouse` computes it (ClickHouseSource, clickhouseReport): median seconds, highest peak. */
  report: ChdbMeasurement;
  /** The floor: every column the model reads, read whole, and every key it looks up in a Map column. */
  floor: ChdbMeasurement;
  /** report ÷ floor, wall time and CPU time. */
  ratio: number;
  cpuRatio: number;
  reportSeconds: number[];
  floorSeconds: number[];
  /** What the floor reads, as found in the model's ClickHouse SQL. */
  columnsRead: ColumnRead[];
  /** The report's statements by time, longest first (the last round's). */
  statements: { file: string; ms: number }[];
}

const root = projectRoot();
/** Children run the built analyzer (npm run bench builds it first). */
const analyzerModule = pathToFileURL(path.join(root, 'analyzer', 'dist', 'index.js')).href;
const DDL_FILE = path.join(root, 'test', 'fixtures', 'clickhouse', 'otel_traces.sql');
/** The one statement of the model that reads the traces table. */
const SPANS_SQL = path.join(root, 'analyzer', 'queries', 'clickhouse', 'spans.sql');
const TABLE = 'otel.otel_traces';

/** A client of chdb over its data folder `dir`, in a child's script (chdb allows one data folder per process). */
const clientOf = (dir: string): string => `
  import { createClient } from '@clickhouse/client';
  import { createChdbConnection } from 'chdb/connection';
  const client = createClient({ connection: createChdbConnection({ path: ${JSON.stringify(dir)} }) });`;

const FOOTER = `
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpuAtStart);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;`;
const START = `
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();`;

/** An OTLP attribute list as the exporter's Map(LowCardinality(String), String): each value as text (pcommon's AsString for scalars). */
const asMap = (kvs: string): string =>
  `CAST(mapFromArrays(arrayMap(kv -> kv.key, ${kvs}), arrayMap(kv -> coalesce(kv.value.stringValue, kv.value.intValue, toString(kv.value.doubleValue), toString(kv.value.boolValue), ''), ${kvs})) AS Map(LowCardinality(String), String))`;
const KEY_VALUES = 'Array(Tuple(key String, value Tuple(stringValue Nullable(String), intValue Nullable(String), doubleValue Nullable(Float64), boolValue Nullable(Bool))))';
/** The OTLP/JSON lines' shape, as far as the exporter's columns need it. */
const OTLP_SCHEMA = `resourceSpans Array(Tuple(resource Tuple(attributes ${KEY_VALUES}), scopeSpans Array(Tuple(scope Tuple(name String, version String), spans Array(Tuple(traceId String, spanId String, parentSpanId String, traceState String, name String, kind UInt8, startTimeUnixNano UInt64, endTimeUnixNano UInt64, attributes ${KEY_VALUES}, status Tuple(code UInt8, message String), events Array(Tuple(timeUnixNano UInt64, name String, attributes ${KEY_VALUES}))))))))`;

/**
 * The generated OTLP/JSON file's spans into the exporter's table, a row per span as the exporter writes it
 * (test/helpers/otel-traces.ts does the same in JS): ClickHouse reads the file itself, nothing passes through JS.
 */
export function loadSql(file: string): string {
  return `INSERT INTO ${TABLE} (Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName, ResourceAttributes, ScopeName, ScopeVersion,
  SpanAttributes, Duration, StatusCode, StatusMessage, \`Events.Timestamp\`, \`Events.Name\`, \`Events.Attributes\`)
SELECT fromUnixTimestamp64Nano(toInt64(s.startTimeUnixNano)), s.traceId, s.spanId, s.parentSpanId, s.traceState, s.name,
  ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'][s.kind + 1],
  arrayFirst(kv -> kv.key = 'service.name', rs.resource.attributes).value.stringValue,
  ${asMap('rs.resource.attributes')}, ss.scope.name, ss.scope.version, ${asMap('s.attributes')},
  s.endTimeUnixNano - s.startTimeUnixNano, ['Unset', 'Ok', 'Error'][s.status.code + 1], s.status.message,
  arrayMap(e -> fromUnixTimestamp64Nano(toInt64(e.timeUnixNano)), s.events), arrayMap(e -> e.name, s.events), arrayMap(e -> ${asMap('e.attributes')}, s.events)
FROM file('${file.replace(/'/g, "\\'")}', 'JSONEachRow', '${OTLP_SCHEMA}')
ARRAY JOIN resourceSpans AS rs ARRAY JOIN rs.scopeSpans AS ss ARRAY JOIN ss.spans AS s`;
}

interface Loaded {
  key: string;
  seconds: number;
  rows: number;
  tableMb: number;
}

/**
 * The table in chdb's data folder `dir`, loaded from `file` and merged into one part per day (as a table
 * the exporter has filled settles); kept for the next run while the file, the DDL and the load are the same.
 */
async function loadTable(file: string, dir: string): Promise<Loaded & { cached: boolean }> {
  const ddl = fs.readFileSync(DDL_FILE, 'utf8');
  const stat = fs.statSync(file);
  const key = createHash('sha256')
    .update(`${ddl}\n${loadSql(file)}\n${stat.size} ${stat.mtimeMs}`)
    .digest('hex');
  const marker = path.join(dir, 'afterstop-bench-loaded.json');
  if (fs.existsSync(marker)) {
    const loaded = JSON.parse(fs.readFileSync(marker, 'utf8')) as Loaded;
    if (loaded.key === key) return { ...loaded, cached: true };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const done = await runScript<Omit<Loaded, 'key'>>(
    `${clientOf(dir)}
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS otel' });
    await client.command({ query: ${JSON.stringify(ddl)} });
    ${START}
    await client.command({ query: ${JSON.stringify(loadSql(file))} });
    await client.command({ query: 'OPTIMIZE TABLE ${TABLE} FINAL' });
    ${FOOTER}
    const parts = await (await client.query({ query: "SELECT sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = 'otel' AND table = 'otel_traces' AND active", format: 'JSONEachRow' })).json();
    await client.close();
    console.log(JSON.stringify({ seconds, rows: Number(parts[0].rows), tableMb: Number(parts[0].bytes) / 1024 / 1024 }));`,
    { what: 'clickhouse load' },
  );
  const loaded = { key, ...done };
  fs.writeFileSync(marker, JSON.stringify(loaded));
  return { ...loaded, cached: false };
}

interface ReportRound extends ChdbMeasurement {
  spansRead: number;
  statements: { file: string; ms: number }[];
}

/** The report as `afterstop leak-report --clickhouse` computes it, each statement timed (what ClickHouseSource sends). */
function reportOnce(dir: string): Promise<ReportRound> {
  return runScript<ReportRound>(
    `${clientOf(dir)}
    const { ClickHouseSource, clickhouseReport, GENAI_PRICES_VERSION } = await import(${JSON.stringify(analyzerModule)});
    const source = new ClickHouseSource(client, { database: 'otel', table: 'otel_traces' });
    const statements = [];
    for (const method of ['run', 'rows']) {
      const call = source[method].bind(source);
      source[method] = async (q, params) => {
        const at = performance.now();
        try { return await call(q, params); } finally { statements.push({ file: q.file.replace(/^.*[/]queries[/]/, ''), ms: performance.now() - at }); }
      };
    }
    ${START}
    // reportOptions({}) of the command: now, and genai-prices' prices.
    const report = await clickhouseReport(source, { now: new Date(), pricesSource: '@pydantic/genai-prices ' + GENAI_PRICES_VERSION });
    ${FOOTER}
    await client.close();
    statements.sort((a, b) => b.ms - a.ms);
    console.log(JSON.stringify({ seconds, cpuSeconds, peakRssMb, spansRead: report.input.spans_read, statements }));`,
    { what: 'clickhouse report' },
  );
}

/**
 * The floor's fastest form: ClickHouse rewrites a key looked up in a Map column of a table (`m['k']`) into a read of
 * that key's subcolumn, each of which reads the map again; at the model's 86 keys that costs 7× the read it stands for
 * (spans.sql, which looks its keys up in an alias of the column, is not rewritten).
 */
const FLOOR_SETTINGS = { optimize_functions_to_subcolumns: 0 };

function floorOnce(dir: string, sql: string): Promise<ChdbMeasurement> {
  return runScript<ChdbMeasurement>(
    `${clientOf(dir)}
    ${START}
    const result = await client.query({ query: ${JSON.stringify(sql)}, format: 'JSONEachRow', clickhouse_settings: ${JSON.stringify(FLOOR_SETTINGS)} });
    await result.json();
    ${FOOTER}
    await client.close();
    console.log(JSON.stringify({ seconds, cpuSeconds, peakRssMb }));`,
    { what: 'clickhouse floor scan' },
  );
}

/** What the model reads of the table, from its ClickHouse SQL and the exporter's DDL. */
export function modelColumnsRead(): ColumnRead[] {
  return columnsRead(fs.readFileSync(SPANS_SQL, 'utf8'), ddlColumns(fs.readFileSync(DDL_FILE, 'utf8')));
}

export async function benchClickHouse(spans: number, workDir: string, rounds = 3): Promise<ClickHouseBench> {
  fs.mkdirSync(workDir, { recursive: true });
  const file = path.join(workDir, `traces-${spans}.jsonl`);
  if (!fs.existsSync(file)) generateTraces(file, spans);
  const dir = path.join(workDir, `chdb-${spans}`);
  const loaded = await loadTable(file, dir);
  const reads = modelColumnsRead();
  const floorSql = floorScanSql(reads, TABLE);
  const reports: ReportRound[] = [];
  const floors: ChdbMeasurement[] = [];
  // Alternating, each round's first the other's last: neither gains from the page cache or a quiet moment alone.
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      reports.push(await reportOnce(dir));
      floors.push(await floorOnce(dir, floorSql));
    } else {
      floors.push(await floorOnce(dir, floorSql));
      reports.push(await reportOnce(dir));
    }
  }
  for (const r of reports) if (r.spansRead !== loaded.rows) throw new Error(`clickhouse bench: the report read ${r.spansRead} spans of the ${loaded.rows} loaded`);
  const summary = (ms: ChdbMeasurement[]): ChdbMeasurement => ({
    seconds: median(ms.map((m) => m.seconds)),
    cpuSeconds: median(ms.map((m) => m.cpuSeconds)),
    peakRssMb: Math.max(...ms.map((m) => m.peakRssMb)),
  });
  const report = summary(reports);
  const floor = summary(floors);
  return {
    spans,
    rounds,
    load: { seconds: loaded.seconds, cached: loaded.cached, tableMb: loaded.tableMb, inputMb: fs.statSync(file).size / 1024 / 1024 },
    report,
    floor,
    ratio: report.seconds / floor.seconds,
    cpuRatio: report.cpuSeconds / floor.cpuSeconds,
    reportSeconds: reports.map((r) => r.seconds),
    floorSeconds: floors.map((f) => f.seconds),
    columnsRead: reads,
    statements: reports[reports.length - 1]!.statements.slice(0, 12),
  };
}
