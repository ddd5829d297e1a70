import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listValue } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLICKHOUSE_SETTINGS } from '../../clickhouse/source.js';
import { listQueries, query, type ColumnType, type Query } from '../../queries.js';
import { QueryColumnError, typedRows } from '../../sql/typed-rows.js';
import { chdbWithTraces } from '../../../test/helpers/chdb.js';
import { analyzeTraces, type Analyzed } from '../../../test/helpers/trace-builder.js';
import { clickhouseReport } from '../../clickhouse/report.js';
import { loadPrices } from '../../prices.js';

/**
 * The `-- @column` lines of every query that declares them, against what each
 * engine really returns: the same names in the same order, of the declared
 * types (DuckDB's result types; ClickHouse's), over every golden trace.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const files = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => golden + f);
const declared = listQueries().filter((q) => q.query.columns.length > 0);
const PARAMS: Record<string, Record<string, unknown>> = {
  findings: { limit: 1000n },
  steering: { since_ns: null, until_ns: null },
  'model-call-price-keys': { since_ns: null, until_ns: null },
  'future-runs': { from_ns: 0n, to_ns: null },
};

const DUCKDB_TYPES: Record<ColumnType, RegExp> = {
  text: /^VARCHAR$/,
  int: /^(U?BIGINT|U?INTEGER|HUGEINT|U?SMALLINT|U?TINYINT)$/,
  bigint: /^(U?BIGINT|HUGEINT)$/,
  float: /^(DOUBLE|FLOAT|DECIMAL\(\d+,\d+\))$/,
  bool: /^BOOLEAN$/,
  'text[]': /^VARCHAR\[\]$/,
};
const CLICKHOUSE_TYPES: Record<ColumnType, RegExp> = {
  text: /^String$/,
  int: /^U?Int(8|16|32|64|128)$/,
  bigint: /^U?Int(64|128)$/,
  float: /^(Float64|Float32|Decimal.*)$/,
  bool: /^(Bool|UInt8)$/,
  'text[]': /^Array\(String\)$/,
};
const clickhouseFile = (file: string): string => fileURLToPath(new URL(`../../queries/clickhouse/${file}.sql`, import.meta.url));
const base = (type: string): string => type.replace(/^LowCardinality\((.*)\)$/, '$1').replace(/^Nullable\((.*)\)$/, '$1');

let duck: Analyzed;
let ch: Awaited<ReturnType<typeof chdbWithTraces>>;
beforeAll(async () => {
  duck = await analyzeTraces(files);
  ch = await chdbWithTraces({ golden: { files } });
  // The report's temporary tables in ClickHouse's session (clickhouseReport prepares them).
  await clickhouseReport(ch.source('golden'), { prices: loadPrices(`${golden}prices.json`), pricesSource: 'golden' });
  stored = (await duck.store.connection.runAndReadAll('SELECT path FROM span_files')).getRowObjectsJS().map((r) => path.join(duck.store.folder, String(r['path'])));
}, 60_000);
afterAll(async () => {
  duck.close();
  await ch.close();
});

/** The parameters each store query takes, none of which changes the store (a cutoff before every span, no day, an empty write elsewhere). */
let stored: string[] = [];
function storeParams(file: string): Record<string, unknown> {
  const byFile: Record<string, Record<string, unknown>> = {
    'skipped-lines': { files: listValue(files) },
    'seen-files': { paths: listValue(files) },
    'input-skipped-lines': { limit: 10n },
    'file-counts': { ingest_id: 1, files: listValue(files) },
    'pruned-span-counts': { ingest_id: 1 },
    'touched-span-files': { ingest_id: 1 },
    'file-span-counts': { files: listValue(stored) },
    'future-runs': { from_ns: 0n, to_ns: null },
    'prune-run-facts': { before_ns: 0n, future_ns: 0n },
    'prune-span-files': { before_ns: 0n, future_ns: 0n },
    'replace-span-files': { days: listValue(['1970-01-01']) },
    'report-span-files': { since_ns: null, until_ns: null },
    // The golden ghost email (g2): a cancelled run whose next run failed.
    'explain-runs': { id: '00000000000000000000000000000006', limit: 10n },
    'run-figures': { runs: listValue(['00000000000000000000000000000006:0000000000000007', 'f0000000000000000000000000000006:000000000000000f']) },
    'run-timeline': { runs: listValue(['00000000000000000000000000000006:0000000000000007']) },
    'run-service-spans': { runs: listValue(['00000000000000000000000000000006:0000000000000007']) },
    'write-span-files': { dir: fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-columns-')), pattern: 'probe_{i}' },
    'write-span-partition': { day: '1970-01-01', service_folder: null, file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-columns-')), 'probe.parquet') },
  };
  return byFile[file] ?? PARAMS[file] ?? {};
}

async function duckColumns(q: Query): Promise<{ names: string[]; types: string[] }> {
  const params = storeParams(q.file.replace(/^.*\//, '').replace(/\.sql$/, ''));
  const reader = await duck.store.connection.runAndReadAll(q.sql, params as never);
  return { names: reader.columnNames(), types: reader.columnTypes().map((t) => t.toString()) };
}

describe('each query returns the columns its header declares', () => {
  it.each(declared.map((d) => [d.file, d.query] as const))('DuckDB: %s', async (_file, q) => {
    const { names, types } = await duckColumns(q);
    expect(names).toEqual(q.columns.map((c) => c.name));
    for (const [i, c] of q.columns.entries()) expect(types[i], `${c.name} is ${c.type}`).toMatch(DUCKDB_TYPES[c.type]);
  });

  it.each(declared.filter((d) => fs.existsSync(clickhouseFile(d.file))).map((d) => [d.file, query(`clickhouse/${d.file}`)] as const))('ClickHouse: %s', async (file, q) => {
    const source = ch.source('golden');
    const client = (source as unknown as { client: { query: (o: object) => Promise<{ text: () => Promise<string> }> } }).client;
    const params = Object.fromEntries(
      q.params.map((p) => {
        const v = PARAMS[file]?.[p.name];
        return [p.name, v === null ? null : String(v ?? '')];
      }),
    );
    const text = await (await client.query({ query: q.sql, query_params: params, format: 'JSONCompactEachRowWithNamesAndTypes', clickhouse_settings: CLICKHOUSE_SETTINGS })).text();
    const [names, types] = text
      .split('\n')
      .slice(0, 2)
      .map((l) => JSON.parse(l) as string[]);
    expect(names).toEqual(q.columns.map((c) => c.name));
    for (const [i, c] of q.columns.entries()) expect(base(types?.[i] ?? ''), `${c.name} is ${c.type}`).toMatch(CLICKHOUSE_TYPES[c.type]);
  });

  it('declares the columns of every query the report reads, and the DuckDB and ClickHouse headers agree', () => {
    for (const { file, query: q } of declared) {
      if (fs.existsSync(clickhouseFile(file))) expect(query(`clickhouse/${file}`).columns, file).toEqual(q.columns);
    }
    expect(declared.length).toBeGreaterThanOrEqual(18);
  });
});

describe('typedRows', () => {
  const q = { ...query('runs') };
  const row = {
    service: 's',
    agent: null,
    framework: null,
    total: 1,
    runs: '3',
    cancelled_runs: 1n,
    cancelled_runs_inferred: 0,
    unended_runs: 0,
    deadline_cancels: 0n,
    uninstrumented_runs: 2n,
    uninstrumented: '@google/adk',
  };
  it("converts each engine's values to the declared types", () => {
    expect(typedRows(q, [row])).toEqual([
      { service: 's', agent: null, framework: null, total: true, runs: 3, cancelled_runs: 1, cancelled_runs_inferred: 0, unended_runs: 0, deadline_cancels: 0, uninstrumented_runs: 2, uninstrumented: '@google/adk' },
    ]);
  });
  it('a missing column, a NULL where none may be, a value of another type: errors naming the query and column, not 0', () => {
    const { runs: _, ...missing } = row;
    expect(() => typedRows(q, [missing])).toThrow(QueryColumnError);
    expect(() => typedRows(q, [missing])).toThrow(/runs\.sql: the engine gave no column runs/);
    expect(() => typedRows(q, [{ ...row, runs: null }])).toThrow(/column runs is declared int, and the engine gave NULL/);
    expect(() => typedRows(q, [{ ...row, runs: 'many' }])).toThrow(/column runs is declared int/);
    expect(() => typedRows(q, [{ ...row, total: 'yes' }])).toThrow(/column total is declared bool/);
    expect(QueryColumnError.isInstance(new QueryColumnError('x'))).toBe(true);
    expect(QueryColumnError.isInstance(new Error('x'))).toBe(false);
  });
});
