import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectRoot } from './child.js';
import { LONG_RUN_ID, LONG_RUN_TRACE, writeLongRun } from './generate-long-run.js';

/**
 * Inputs that grow in one direction (issue 46): a run of many tool calls drawn
 * by `afterstop explain` (HTML), many one-span files read at once, and a line
 * of 150 MB among valid ones. Each measured as the command runs, in a process
 * of its own (its peak memory its own), at a small and a large size: the
 * ratio says whether the cost grows with the input (10× the calls: ≈ 10× the
 * time) or not at all (10× the files: about the same memory).
 */
export interface Measurement {
  seconds: number;
  peakRssMb: number;
  /** The command's exit status. */
  status: number;
}

export interface LargeInputsBench {
  /**
   * `measured`: the explain; `ingested`: the ingest of the same run into its store, before it (not timed into it);
   * `queried`, at the largest size only: `afterstop query run-timeline --format json` of the run, from the same
   * store (its rows printed as they are read).
   */
  explain: { calls: number; measured: Measurement; ingested: Measurement; queried?: Measurement }[];
  manyFiles: { files: number; measured: Measurement }[];
  /** The spans of the largest many-files run, in one file: what holding the spans costs, with no per-file cost. */
  oneFile: { spans: number; measured: Measurement };
  longLine: { mb: number; measured: Measurement };
}

const root = projectRoot();
const cli = path.join(root, 'analyzer', 'dist', 'cli', 'main.js');

/**
 * Run the built CLI in a child under GNU time (`/usr/bin/time -f %M`: the child's own peak RSS), timed here;
 * its stdout into `stdoutFile` when given. Without GNU time the peak is NaN.
 */
function run(args: string[], stdoutFile?: string): Measurement {
  const timeFile = path.join(os.tmpdir(), `afterstop-bench-time-${process.pid}`);
  const hasTime = fs.existsSync('/usr/bin/time');
  const stdout = stdoutFile === undefined ? 'ignore' : fs.openSync(stdoutFile, 'w');
  const stdio: ('ignore' | number)[] = ['ignore', stdout, 'ignore'];
  const started = performance.now();
  let out: ReturnType<typeof spawnSync>;
  try {
    out = hasTime ? spawnSync('/usr/bin/time', ['-o', timeFile, '-f', '%M', process.execPath, cli, ...args], { stdio }) : spawnSync(process.execPath, [cli, ...args], { stdio });
  } finally {
    if (typeof stdout === 'number') fs.closeSync(stdout);
  }
  const seconds = (performance.now() - started) / 1000;
  let peakRssMb = Number.NaN;
  if (hasTime) {
    peakRssMb = Number(fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop()) / 1024;
    fs.rmSync(timeFile, { force: true });
  }
  return { seconds, peakRssMb, status: out.status ?? -1 };
}

/**
 * `afterstop explain` of one run of `calls` tool calls, as HTML, from a store that holds it; the ingest that made
 * it apart; and, when `query`, the run's timeline rows printed by `afterstop query` (`long-run-N-timeline.json`).
 */
function explainRun(calls: number, workDir: string, query: boolean): { measured: Measurement; ingested: Measurement; queried?: Measurement } {
  const file = path.join(workDir, `long-run-${calls}.jsonl`);
  const db = path.join(workDir, `long-run-${calls}-store`);
  fs.rmSync(db, { recursive: true, force: true });
  writeLongRun(file, calls);
  try {
    const ingested = run(['ingest', '--db', db, '--no-progress', file]);
    if (ingested.status !== 0) throw new Error(`bench: ingest of ${file} failed`);
    const measured = run(['explain', LONG_RUN_ID, '--db', db, '--format', 'html', '--out', path.join(workDir, `long-run-${calls}.html`), '--no-progress']);
    if (!query) return { measured, ingested };
    const queried = run(['query', 'run-timeline', '--db', db, '--param', `runs=${LONG_RUN_TRACE}:${LONG_RUN_ID}`, '--format', 'json'], path.join(workDir, `long-run-${calls}-timeline.json`));
    // A query that failed at once would show a small peak: not a measurement.
    if (queried.status !== 0) throw new Error(`bench: afterstop query run-timeline of ${calls} calls exited ${queried.status}`);
    return { measured, ingested, queried };
  } finally {
    fs.rmSync(file, { force: true });
    fs.rmSync(db, { recursive: true, force: true });
  }
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** `files` OTLP/JSON files of one span each, a thousand per folder. */
function writeManyFiles(dir: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, `d${Math.floor(i / 1000)}`);
    if (i % 1000 === 0) fs.mkdirSync(sub, { recursive: true });
    const start = String(1_790_000_000_000_000_000n + BigInt(i) * 1_000_000n);
    const span = {
      traceId: hex(i + 1, 32),
      spanId: hex(i + 1, 16),
      parentSpanId: '',
      name: 'invoke_agent a',
      kind: 1,
      startTimeUnixNano: start,
      endTimeUnixNano: start,
      attributes: [
        { key: 'afterstop.run.id', value: { stringValue: hex(i + 1, 16) } },
        { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
      ],
      status: {},
    };
    fs.writeFileSync(
      path.join(sub, `t${i}.jsonl`),
      `${JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'many' } }] }, scopeSpans: [{ scope: { name: 'afterstop' }, spans: [span] }] }] })}\n`,
    );
  }
}

/** `afterstop leak-report` over `files` one-span files into a new store (`oneFile`: the same spans in one file). */
function manyFiles(files: number, workDir: string, oneFile = false): Measurement {
  const dir = path.join(workDir, `many-files-${files}${oneFile ? '-one' : ''}`);
  const db = path.join(workDir, `many-files-${files}-store`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(db, { recursive: true, force: true });
  writeManyFiles(dir, files);
  if (oneFile) {
    const all = path.join(dir, 'all.jsonl');
    for (const sub of fs.readdirSync(dir)) {
      if (sub === 'all.jsonl') continue;
      for (const f of fs.readdirSync(path.join(dir, sub))) fs.appendFileSync(all, fs.readFileSync(path.join(dir, sub, f)));
      fs.rmSync(path.join(dir, sub), { recursive: true, force: true });
    }
  }
  try {
    return run(['leak-report', '--db', db, '--format', 'json', '--out', path.join(workDir, `many-files-${files}${oneFile ? '-one' : ''}.json`), '--no-progress', dir]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(db, { recursive: true, force: true });
  }
}

/** `afterstop leak-report` over a file whose second line is a valid OTLP/JSON line of `mb` MiB, between valid ones (written a MiB at a time, removed after). */
function longLine(mb: number, workDir: string): Measurement {
  const file = path.join(workDir, `long-line-${mb}.jsonl`);
  const golden = fs
    .readFileSync(path.join(root, 'test', 'fixtures', 'golden', 'g2-ghost-email.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(
      fd,
      `${golden[0]}\n{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"big"},"spans":[{"traceId":"aa","spanId":"bb","name":"big","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"blob","value":{"stringValue":"`,
    );
    const chunk = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < mb; i++) fs.writeSync(fd, chunk);
    fs.writeSync(fd, `"}}]}]}]}]}\n${golden.slice(1).join('\n')}\n`);
  } finally {
    fs.closeSync(fd);
  }
  try {
    return run(['leak-report', '--db', ':memory:', '--format', 'json', '--out', path.join(workDir, `long-line-${mb}.json`), '--no-progress', file]);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** BENCH_EXPLAIN_CALLS (default 10,000,100,000), BENCH_MANY_FILES (default 20,000,200,000), BENCH_LONG_LINE_MB (default 150). */
export function benchLargeInputs(workDir: string, env: NodeJS.ProcessEnv = process.env): LargeInputsBench {
  fs.mkdirSync(workDir, { recursive: true });
  const list = (name: string, fallback: string): number[] => (env[name] ?? fallback).split(',').map(Number);
  const counts = list('BENCH_MANY_FILES', '20000,200000');
  const largest = Math.max(...counts);
  const runs = list('BENCH_EXPLAIN_CALLS', '10000,100000');
  const longest = Math.max(...runs);
  return {
    explain: runs.map((calls) => ({ calls, ...explainRun(calls, workDir, calls === longest) })),
    manyFiles: counts.map((files) => ({ files, measured: manyFiles(files, workDir) })),
    oneFile: { spans: largest, measured: manyFiles(largest, workDir, true) },
    longLine: ((mb) => ({ mb, measured: longLine(mb, workDir) }))(Number(env['BENCH_LONG_LINE_MB'] ?? 150)),
  };
}
