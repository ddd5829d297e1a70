import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateTraces } from './generate-traces.js';

/**
 * Ingest plus report over generated OTLP/JSON, against a bare DuckDB
 * read_json of the same file with an explicit schema, in the same run. Each
 * measurement runs in its own process, so that its peak memory is its own.
 */
export interface Measurement {
  seconds: number;
  peakRssMb: number;
}

export interface AnalyzerBench {
  spans: number;
  /** read_json with the explicit schema and its default options, as one would write it. */
  bareRead: Measurement;
  /**
   * The same with sample_size = 1: with an explicit schema DuckDB's default
   * sampling (20,480 objects, on one thread) only costs time, and afterstop
   * skips it. The fair floor for what afterstop does.
   */
  bareReadNoSampling: Measurement;
  /** Ingest into a new store and report. */
  cold: Measurement;
  /** The same again: nothing new to ingest, the report from the store. */
  warm: Measurement;
  /** cold ÷ bare read: the target is at most 1.3. */
  ratioToBareRead: number;
  /** cold ÷ the bare read without sampling. */
  ratioToBareReadNoSampling: number;
}

/** The project root (where package.json is), from the source tree or from dist/. */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('afterstop bench: no package.json above this file');
    dir = up;
  }
  return dir;
}
const root = projectRoot();
/** Children run the built analyzer (npm run bench builds it first). */
const analyzerModule = pathToFileURL(path.join(root, 'dist', 'analyzer', 'index.js')).href;

function measure(script: string): Measurement {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (out.status !== 0) throw new Error(`bench child failed: ${out.stderr}`);
  const line = out.stdout.trim().split('\n').pop() ?? '{}';
  return JSON.parse(line) as Measurement;
}

const FOOTER = `
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ seconds, peakRssMb: process.resourceUsage().maxRSS / 1024 }));`;

function bareRead(file: string, sampling: boolean): Measurement {
  // The same explicit schema as queries/store-files.sql, materialised as one row per span.
  const options = sampling ? '' : ', sample_size = 1';
  return measure(`
    import * as fs from 'node:fs';
    import { DuckDBInstance } from '@duckdb/node-api';
    const sql = fs.readFileSync(${JSON.stringify(path.join(root, 'queries', 'store-files.sql'))}, 'utf8');
    const schema = sql.slice(sql.indexOf("columns = {resourceSpans: '") + 27, sql.indexOf("'})"));
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const started = performance.now();
    await connection.run(\`CREATE TABLE spans AS SELECT unnest(ss.spans) AS s FROM (SELECT unnest(rs.scopeSpans) AS ss FROM (SELECT unnest(resourceSpans) AS rs FROM read_json('${file}', format = 'newline_delimited'${options}, columns = {resourceSpans: '\${schema}'})))\`);
    connection.closeSync();
    instance.closeSync();
    ${FOOTER}`);
}

function analyzeOnce(file: string, db: string): Measurement {
  return measure(`
    import { analyze } from ${JSON.stringify(analyzerModule)};
    const started = performance.now();
    await analyze({ inputs: [${JSON.stringify(file)}], db: ${JSON.stringify(db)} });
    ${FOOTER}`);
}

export function benchAnalyzer(spans: number, workDir: string): AnalyzerBench {
  fs.mkdirSync(workDir, { recursive: true });
  const file = path.join(workDir, `traces-${spans}.jsonl`);
  if (!fs.existsSync(file)) generateTraces(file, spans);
  const db = path.join(workDir, `store-${spans}.duckdb`);
  for (const f of [db, `${db}.wal`]) fs.rmSync(f, { force: true });
  const bare = bareRead(file, true);
  const bareNoSampling = bareRead(file, false);
  const cold = analyzeOnce(file, db);
  const warm = analyzeOnce(file, db);
  for (const f of [db, `${db}.wal`]) fs.rmSync(f, { force: true });
  return {
    spans,
    bareRead: bare,
    bareReadNoSampling: bareNoSampling,
    cold,
    warm,
    ratioToBareRead: cold.seconds / bare.seconds,
    ratioToBareReadNoSampling: cold.seconds / bareNoSampling.seconds,
  };
}
