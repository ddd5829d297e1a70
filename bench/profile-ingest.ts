/**
 * `npm run profile:ingest`: where a cold ingest + report spends its time, for the bench's
 * `ingest-report-N` row (docs/benchmarks.md). One process, as `afterstop leak-report` runs:
 * every statement afterstop sends to DuckDB timed (wall), the process's CPU and peak memory;
 * with `--operators`, DuckDB's own profile of each statement too (its CPU and its costliest
 * operators; profiling slows the run, so the two are separate runs).
 *   --spans N      the generated traces' size (default 1000000; .bench-out/traces-N.jsonl, made once)
 *   --operators    also DuckDB's operator profile, per statement
 *   --top K        rows shown (default 25)
 *   --warm         the report over the store instead (the bench's `report-store-N`): a cold ingest first, not
 *                  timed, then the same command again, which reads nothing new
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { analyze, Store } from '@afterstop/analyzer';
import { generateTraces } from './generate-traces.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const spans = Number(arg('--spans') ?? 1_000_000);
const top = Number(arg('--top') ?? 25);
const operators = process.argv.includes('--operators');
const warm = process.argv.includes('--warm');

interface Timed {
  ms: number;
  calls: number;
}

/** DuckDB's JSON profile of one statement: its tree of operators (enable_profiling = 'json'). */
interface ProfileNode {
  operator_name?: string;
  operator_type?: string;
  operator_timing?: number;
  operator_cardinality?: number;
  cpu_time?: number;
  latency?: number;
  children?: ProfileNode[];
}

type Method = 'run' | 'rows' | 'script' | 'typedRows';

/** A statement's name in the profile: its query's `@name`, which is its file's name with _ for - (typedRows takes the file's; analyzer/test/queries.test.ts holds every query to that). */
const statementName = (q: { name: string } | string): string => (typeof q === 'string' ? q.replaceAll('-', '_') : q.name);

/** Every statement the analyzer sends through the Store, timed by its query's name; with a profile folder, DuckDB's profile of each. */
function instrumentStore(times: Map<string, Timed>, profileDir: string | undefined): void {
  const proto = Store.prototype as unknown as Record<Method, (this: Store, q: { name: string } | string, ...rest: unknown[]) => Promise<unknown>>;
  for (const method of ['run', 'rows', 'script', 'typedRows'] as const) {
    const original = proto[method];
    proto[method] = async function (this: Store, q: { name: string } | string, ...rest: unknown[]): Promise<unknown> {
      const name = statementName(q);
      const seen = times.get(name) ?? { ms: 0, calls: 0 };
      if (profileDir !== undefined) {
        const file = path.join(profileDir, `${name}-${seen.calls}.json`);
        await this.connection.run(`SET enable_profiling = 'json'; SET profiling_output = '${file}'`);
      }
      const started = performance.now();
      try {
        return await original.call(this, q, ...rest);
      } finally {
        seen.ms += performance.now() - started;
        seen.calls += 1;
        times.set(name, seen);
        if (profileDir !== undefined) await this.connection.run("SET enable_profiling = 'no_output'");
      }
    };
  }
}

function operatorRows(profileDir: string): { statement: string; cpuS: number; ops: { name: string; s: number; rows: number | undefined }[] }[] {
  return fs
    .readdirSync(profileDir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      let root: ProfileNode;
      try {
        root = JSON.parse(fs.readFileSync(path.join(profileDir, f), 'utf8')) as ProfileNode;
      } catch {
        return [];
      }
      const ops: { name: string; s: number; rows: number | undefined }[] = [];
      const walk = (n: ProfileNode): void => {
        const name = n.operator_name ?? n.operator_type;
        if (name !== undefined) ops.push({ name: name.trim(), s: n.operator_timing ?? 0, rows: n.operator_cardinality });
        for (const c of n.children ?? []) walk(c);
      };
      walk(root);
      return [{ statement: f.replace(/\.json$/, ''), cpuS: root.cpu_time ?? 0, ops: ops.sort((a, b) => b.s - a.s) }];
    })
    .sort((a, b) => b.cpuS - a.cpuS);
}

const work = path.resolve(process.env['BENCH_DIR'] ?? '.bench-out');
fs.mkdirSync(work, { recursive: true });
const traces = path.join(work, `traces-${spans}.jsonl`);
if (!fs.existsSync(traces)) {
  process.stderr.write(`profile: generating ${spans} spans into ${traces}...\n`);
  generateTraces(traces, spans);
}
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-profile-'));
const profileDir = operators ? path.join(scratch, 'profiles') : undefined;
if (profileDir !== undefined) fs.mkdirSync(profileDir);
const times = new Map<string, Timed>();
try {
  // The store the warm report reads, made before any statement is timed.
  if (warm) await analyze({ inputs: [traces], db: path.join(scratch, 'store') });
  instrumentStore(times, profileDir);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await analyze({ inputs: [traces], db: path.join(scratch, 'store') });
  const wallS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const inStatements = [...times.values()].reduce((s, t) => s + t.ms, 0) / 1000;
  const out: string[] = [
    `${warm ? 'report over the store (warm: nothing new read)' : 'cold ingest + report'} of ${spans.toLocaleString('en-US')} spans${operators ? ' (DuckDB profiling on: slower)' : ''}: ${wallS.toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU, peak ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB${warm ? " (the untimed ingest's too)" : ''}; ${inStatements.toFixed(2)} s in ${times.size} statements`,
    '',
    'wall s   share  calls  statement',
  ];
  for (const [name, t] of [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, top)) {
    out.push(`${(t.ms / 1000).toFixed(3).padStart(6)}  ${((100 * t.ms) / 1000 / wallS).toFixed(1).padStart(5)} %  ${String(t.calls).padStart(5)}  ${name}`);
  }
  if (profileDir !== undefined) {
    const rows = operatorRows(profileDir);
    const total = rows.reduce((s, r) => s + r.cpuS, 0);
    out.push('', `DuckDB CPU by statement (all threads; ${total.toFixed(2)} s in all), with its costliest operators:`);
    for (const r of rows.slice(0, top)) {
      const ops = r.ops
        .slice(0, 3)
        .map((o) => `${o.name} ${o.s.toFixed(2)} s`)
        .join(', ');
      out.push(`${r.cpuS.toFixed(3).padStart(6)}  ${((100 * r.cpuS) / total).toFixed(1).padStart(5)} %  ${r.statement}: ${ops}`);
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
