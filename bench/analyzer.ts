import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FAST_PATH_MAX_LINE, memoryLimitSetting } from '@afterstop/analyzer';
import { median, projectRoot } from './child.js';
import { generateTraces } from './generate-traces.js';

/**
 * The leak report over generated OTLP/JSON, each measurement in its own
 * process (its peak memory is its own), against baselines measured in the
 * same run: the ingest against a bare DuckDB read_json of the same file, the
 * report against a bare scan of the store's own Parquet files.
 */
export interface Measurement {
  seconds: number;
  peakRssMb: number;
  /** The rows kept, where the measurement counts them (after its clock stopped). */
  rows?: number;
}

export interface AnalyzerBench {
  spans: number;
  /** read_json of the file with the explicit schema, materialised a row per span (sample_size = 1, as afterstop reads). */
  bareRead: Measurement;
  /** The same read kept: into a DuckDB database file, and into a Parquet file (the store's memory limit). */
  bareReadIntoFile: Measurement;
  bareReadIntoParquet: Measurement;
  /** The contract's floor: afterstop's own read (store-files.sql, the model's columns taken out of each span) kept in a DuckDB database file, and nothing else. */
  contractRead: Measurement;
  /** Ingest into a new store (Parquet written) and report, in a process set up as the command's (one libuv thread). */
  cold: Measurement;
  /** The report from the store: nothing new to ingest. */
  warm: Measurement;
  /** Every column of the store's Parquet files read (max of each), with the store's memory limit. */
  bareScan: Measurement;
  /** The store's Parquet files on disk, and the OTLP/JSON read. */
  parquetMb: number;
  inputMb: number;
  /** Interleaved rounds of every measurement; each figure is the median of its rounds. */
  rounds: number;
  /** cold ÷ the floor (the bare read kept in a DuckDB file): the ingest row's ratio. */
  ratioToFloor: number;
  /** cold ÷ the contract's floor: what the ingest and report cost over reading and keeping what the contract requires. */
  ratioToContractRead: number;
  /** The contract's floor ÷ the floor: what taking the model's columns out of each span costs over keeping the bare read. */
  contractReadRatioToFloor: number;
  /** cold ÷ bare read. */
  ratioToBareRead: number;
  /** The floor under it: the bare read kept (into a DuckDB file, into Parquet) ÷ the bare read. */
  intoFileRatioToBareRead: number;
  intoParquetRatioToBareRead: number;
  /** warm ÷ bare scan of the same Parquet. */
  ratioToBareScan: number;
}

const root = projectRoot();
/** Children run the built analyzer (npm run bench builds it first). */
const analyzerModule = pathToFileURL(path.join(root, 'analyzer', 'dist', 'index.js')).href;

function measure(script: string): Measurement {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (out.status !== 0) throw new Error(`bench child failed: ${out.stderr}`);
  const line = out.stdout.trim().split('\n').pop() ?? '{}';
  return JSON.parse(line) as Measurement;
}

const FOOTER = `
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ seconds, peakRssMb: process.resourceUsage().maxRSS / 1024 }));`;

const MEMORY_LIMIT = memoryLimitSetting();

/**
 * Where the bare read puts its rows: a table in memory (the baseline), a table in a DuckDB database file, or a
 * Parquet file. The last two are what keeping the read costs DuckDB itself, with no leak model: the floor under
 * any store that keeps its spans (afterstop's writes its rows to a table, then to Parquet).
 */
type BareReadInto = 'memory' | 'duckdb-file' | 'parquet';

/**
 * `measureIn` given a folder of its own under `workDir` for what DuckDB keeps, and the options of a DuckDB kept
 * as the store keeps its own (the store's memory limit, its temporary files in that folder); removed after.
 */
function inKeptFolder(workDir: string, name: string, measureIn: (kept: string, options: string) => Measurement): Measurement {
  const kept = path.join(workDir, `${name}-${process.pid}`);
  fs.rmSync(kept, { recursive: true, force: true });
  fs.mkdirSync(kept, { recursive: true });
  try {
    return measureIn(kept, JSON.stringify({ memory_limit: MEMORY_LIMIT, temp_directory: path.join(kept, 'tmp') }));
  } finally {
    fs.rmSync(kept, { recursive: true, force: true });
  }
}

function bareRead(file: string, into: BareReadInto, workDir: string): Measurement {
  return inKeptFolder(workDir, 'bare-read', (kept, keptOptions) => {
    // The same explicit schema as queries/store-files.sql, materialised as one row per span.
    const flat =
      "SELECT unnest(ss.spans) AS s FROM (SELECT unnest(rs.scopeSpans) AS ss FROM (SELECT unnest(resourceSpans) AS rs FROM read_json($file, format = 'newline_delimited', sample_size = 1, columns = {resourceSpans: '${schema}'})))";
    const statement = into === 'parquet' ? `COPY (${flat}) TO '${path.join(kept, 'spans.parquet')}' (FORMAT parquet, PARQUET_VERSION v2)` : `CREATE TABLE spans AS ${flat}`;
    // Kept: with the store's memory limit and rows in any order, as afterstop writes them (the baseline, in memory, as DuckDB's defaults).
    const options = into === 'memory' ? '{}' : keptOptions;
    return measure(`
    import * as fs from 'node:fs';
    import { DuckDBInstance } from '@duckdb/node-api';
    const sql = fs.readFileSync(${JSON.stringify(path.join(root, 'analyzer', 'queries', 'store-files.sql'))}, 'utf8');
    const schema = sql.slice(sql.indexOf("columns = {resourceSpans: '") + 27, sql.indexOf("'})"));
    const instance = await DuckDBInstance.create(${JSON.stringify(into === 'duckdb-file' ? path.join(kept, 'kept.duckdb') : ':memory:')}, ${options});
    const connection = await instance.connect();
    const started = performance.now();
    ${into === 'memory' ? '' : "await connection.run('SET preserve_insertion_order = false');"}
    await connection.run(\`${statement}\`, { file: ${JSON.stringify(file)} });
    connection.closeSync();
    instance.closeSync();
    ${FOOTER}`);
  });
}

/**
 * The contract's floor: the read afterstop itself sends (queries/store-files.sql: the same typed read_json, each
 * span's ids, times and status, and the attributes the leak model reads taken out as columns with its role and
 * named run, by the span_rows macro), kept in a DuckDB database file with the store's memory limit, and nothing
 * more: no duplicate removed, no run assigned, no fact, no Parquet, no report. What the ingest costs over it is
 * afterstop's own work; what it costs over the bare floor is the price of the columns SEMCONV.md and METRICS.md
 * make any store of these spans keep.
 */
function contractRead(file: string, workDir: string): Measurement {
  return inKeptFolder(workDir, 'contract-read', (kept, options) =>
    measure(`
    import * as fs from 'node:fs';
    import { DuckDBInstance, listValue, LIST, VARCHAR, UBIGINT, INTEGER } from '@duckdb/node-api';
    const queries = ${JSON.stringify(path.join(root, 'analyzer', 'queries'))};
    const macros = fs.readFileSync(queries + '/macros.sql', 'utf8');
    const storeFiles = fs.readFileSync(queries + '/store-files.sql', 'utf8');
    const insert = 'INSERT INTO spans BY NAME';
    if (!storeFiles.includes(insert)) throw new Error('store-files.sql no longer inserts into spans: bench/analyzer.ts contractRead reads it');
    const read = storeFiles.slice(storeFiles.indexOf(insert) + insert.length).trim().replace(/;\\s*$/, '');
    const instance = await DuckDBInstance.create(${JSON.stringify(path.join(kept, 'kept.duckdb'))}, ${options});
    const connection = await instance.connect();
    await connection.run(macros);
    const started = performance.now();
    await connection.run('SET preserve_insertion_order = false');
    await connection.run('CREATE TABLE spans AS ' + read,
      { files: listValue([${JSON.stringify(file)}]), compression: 'uncompressed', source: null, max_object_bytes: ${FAST_PATH_MAX_LINE}n, ingest_id: 1 },
      { files: LIST(VARCHAR), source: VARCHAR, max_object_bytes: UBIGINT, ingest_id: INTEGER });
    connection.closeSync();
    instance.closeSync();
    const seconds = (performance.now() - started) / 1000;
    const peakRssMb = process.resourceUsage().maxRSS / 1024;
    // Counted after the clock stopped: every span read, as the ingest reads them.
    const check = await DuckDBInstance.create(${JSON.stringify(path.join(kept, 'kept.duckdb'))});
    const rows = Number((await (await check.connect()).runAndReadAll('SELECT count(*) FROM spans')).getRows()[0][0]);
    check.closeSync();
    console.log(JSON.stringify({ seconds, peakRssMb, rows }));`),
  );
}

/** Every column of the store's Parquet files read once. */
function bareScan(store: string): Measurement {
  return measure(`
    import * as fs from 'node:fs';
    import * as path from 'node:path';
    import { DuckDBInstance, listValue } from '@duckdb/node-api';
    const dir = ${JSON.stringify(path.join(store, 'spans'))};
    const files = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.parquet')).map((f) => path.join(dir, f));
    const instance = await DuckDBInstance.create(':memory:', { memory_limit: ${JSON.stringify(MEMORY_LIMIT)} });
    const connection = await instance.connect();
    const started = performance.now();
    await connection.run('SELECT max(COLUMNS(*)) FROM read_parquet($files, hive_partitioning = false)', { files: listValue(files) });
    connection.closeSync();
    instance.closeSync();
    ${FOOTER}`);
}

/** The command's sizing of libuv's pool (analyzer/cli/thread-pool.ts), as `afterstop leak-report` runs. */
const threadPoolModule = pathToFileURL(path.join(root, 'analyzer', 'dist', 'cli', 'thread-pool.js')).href;

function analyzeOnce(file: string, db: string): Measurement {
  // As the command runs it: libuv's pool sized before DuckDB's client loads (and starts it).
  return measure(`
    const { useCliThreadPool } = await import(${JSON.stringify(threadPoolModule)});
    useCliThreadPool(process.env);
    const { analyze } = await import(${JSON.stringify(analyzerModule)});
    const started = performance.now();
    await analyze({ inputs: [${JSON.stringify(file)}], db: ${JSON.stringify(db)} });
    ${FOOTER}`);
}

/** Median seconds of the rounds, and the highest peak memory of any (as bench/clickhouse.ts); the rows kept, if counted, the fewest of any. */
function medianOf(ms: Measurement[]): Measurement {
  const counted = ms.flatMap((m) => (m.rows === undefined ? [] : [m.rows]));
  return {
    seconds: median(ms.map((m) => m.seconds)),
    peakRssMb: Math.max(...ms.map((m) => m.peakRssMb)),
    ...(counted.length > 0 ? { rows: Math.min(...counted) } : {}),
  };
}

function sizeMb(dir: string): number {
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) if (entry.isFile()) bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  return bytes / 1024 / 1024;
}

export function benchAnalyzer(spans: number, workDir: string): AnalyzerBench {
  fs.mkdirSync(workDir, { recursive: true });
  const file = path.join(workDir, `traces-${spans}.jsonl`);
  if (!fs.existsSync(file)) generateTraces(file, spans);
  const store = path.join(workDir, `store-${spans}`);
  fs.rmSync(store, { recursive: true, force: true });
  try {
    // Interleaved rounds (the cold ingest beside its floor in each), the median of each: at 1,000,000 spans a
    // round is about 30 s, at 10,000,000 about 5 minutes (BENCH_ANALYZER_ROUNDS sets them).
    const rounds = Number(process.env['BENCH_ANALYZER_ROUNDS'] ?? (spans > 1_000_000 ? 1 : 3));
    const samples: Record<'read' | 'intoFile' | 'intoParquet' | 'contract' | 'cold' | 'warm' | 'scan', Measurement[]> = {
      read: [],
      intoFile: [],
      intoParquet: [],
      contract: [],
      cold: [],
      warm: [],
      scan: [],
    };
    for (let r = 0; r < rounds; r++) {
      samples.intoFile.push(bareRead(file, 'duckdb-file', workDir));
      fs.rmSync(store, { recursive: true, force: true });
      samples.cold.push(analyzeOnce(file, store));
      samples.contract.push(contractRead(file, workDir));
      samples.warm.push(analyzeOnce(file, store));
      samples.scan.push(bareScan(store));
      samples.read.push(bareRead(file, 'memory', workDir));
      samples.intoParquet.push(bareRead(file, 'parquet', workDir));
    }
    const [read, intoFile, intoParquet, contract, cold, warm, scan] = (['read', 'intoFile', 'intoParquet', 'contract', 'cold', 'warm', 'scan'] as const).map((k) => medianOf(samples[k])) as [
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
    ];
    return {
      spans,
      rounds,
      bareRead: read,
      bareReadIntoFile: intoFile,
      bareReadIntoParquet: intoParquet,
      contractRead: contract,
      cold,
      warm,
      bareScan: scan,
      parquetMb: sizeMb(path.join(store, 'spans')),
      inputMb: fs.statSync(file).size / 1024 / 1024,
      ratioToFloor: cold.seconds / intoFile.seconds,
      ratioToContractRead: cold.seconds / contract.seconds,
      contractReadRatioToFloor: contract.seconds / intoFile.seconds,
      ratioToBareRead: cold.seconds / read.seconds,
      intoFileRatioToBareRead: intoFile.seconds / read.seconds,
      intoParquetRatioToBareRead: intoParquet.seconds / read.seconds,
      ratioToBareScan: warm.seconds / scan.seconds,
    };
  } finally {
    fs.rmSync(store, { recursive: true, force: true });
  }
}
