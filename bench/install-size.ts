/**
 * The instrumentation as a user installs it: the packed tarballs of `afterstop` and of the span contract
 * it depends on, installed by npm into a fresh project that holds nothing else. Measured: its size on
 * disk (every file under node_modules, in allocated blocks, as `du` counts), its apparent size, its
 * package count, and the native binaries in it (`*.node`: none may be). Then frameworks that declare
 * OpenTelemetry ranges of their own are installed, each into its own fresh project, and afterstop added
 * beside them without `--force` or `--legacy-peer-deps`: npm must resolve them, with one copy of the
 * OpenTelemetry API; and an app under `--import afterstop/register` records a Stop, alone and beside
 * each line of the API (1.9, 1.10).
 *
 * The analyzer's tarball is installed alone the same way, and its `afterstop leak-report` run over a golden
 * trace: the README's path to a nightly job.
 *
 * It needs the npm registry (afterstop's own dependencies come from there, as for a user): `.ci/run` runs
 * it with `--check` (exit 1 when a target is missed), `npm run bench -- --only install-size` as a row.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from './child.js';
import { packWorkspaces } from './pack.js';

/** The most the instrumentation may weigh once installed, in bytes on disk. */
export const INSTALL_LIMIT_BYTES = 15_000_000;

/** Frameworks whose declared OpenTelemetry ranges the packed afterstop must install beside. */
export const BESIDE = [
  // Strands Agents TS declares optional peers on the OTLP exporter ^0.219 and the SDK ^2.6 (an exact pin of
  // 0.223 in afterstop made `npm install` fail with ERESOLVE); the exporter at 0.219 is what its users add.
  ['@strands-agents/sdk', '@opentelemetry/exporter-trace-otlp-http@0.219.0'],
  // Google ADK pins @opentelemetry/api 1.9.0 and depends on the 0.205 exporters.
  ['@google/adk'],
  // An app on either side of the OpenTelemetry API's 1.10 line (the 3.x SDK needs 1.10; the 2.x SDK, < 1.10).
  ['@opentelemetry/api@1.9.0'],
  ['@opentelemetry/api@1.10.0'],
] as const;

export interface InstallSize {
  tarballs: { name: string; bytes: number; files: number }[];
  bytesOnDisk: number;
  apparentBytes: number;
  packages: number;
  natives: string[];
  beside: { install: string[]; ok: boolean; error: string; apiCopies: number; recorded: boolean | null; oneCommandApiCopies: number | null }[];
  /** The analyzer's tarball installed alone, as a nightly job's machine does, and its `afterstop leak-report` over a golden trace. */
  analyzer: { bytesOnDisk: number; packages: number; reported: boolean; error: string };
}

/** `npm install` of the analyzer's tarball into a fresh project, then its command over g2 (one ghost commit): the README's nightly path. */
function analyzerInstalled(root: string, tarballs: string[], made: string[]): InstallSize['analyzer'] {
  const dir = freshProject();
  made.push(dir);
  const installed = npm(['install', ...tarballs], dir);
  if (installed.status !== 0) return { bytesOnDisk: 0, packages: 0, reported: false, error: installed.stderr };
  const weight = weigh(path.join(dir, 'node_modules'));
  const cli = path.join(dir, 'node_modules', '@afterstop', 'analyzer', 'dist', 'cli', 'main.js');
  const golden = path.join(root, 'test', 'fixtures', 'golden', 'g2-ghost-email.jsonl');
  const r = spawnSync(process.execPath, [cli, 'leak-report', golden, '--db', ':memory:', '--format', 'json'], { cwd: dir, encoding: 'utf8' });
  let reported = false;
  try {
    reported = r.status === 0 && (JSON.parse(r.stdout) as { totals: { ghost_commits: number } }).totals.ghost_commits === 1;
  } catch {
    reported = false;
  }
  return { bytesOnDisk: weight.disk, packages: weight.packages, reported, error: reported ? '' : `exit ${r.status}: ${r.stderr.slice(0, 2000)}` };
}

/** A Stop recorded by the installed package, as an app would: `--import afterstop/register`, a run stopped, a trace file read back. */
function recordsAStop(project: string): boolean {
  const traces = path.join(project, 'traces');
  const app = "import { startRun, shutdown } from 'afterstop'; const run = startRun({ agentName: 'fresh' }); await run.cancel({ source: 'user' }); run.end(); await shutdown();";
  const r = spawnSync(process.execPath, ['--import', 'afterstop/register', '--input-type=module', '-e', app], { cwd: project, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', AFTERSTOP_TRACES_DIR: traces } });
  if (r.status !== 0 || !fs.existsSync(traces)) return false;
  return fs.readdirSync(traces).some((f) => fs.readFileSync(path.join(traces, f), 'utf8').includes('afterstop.cancel.request'));
}

/** How many copies of @opentelemetry/api the project holds (two copies split the global context). */
function apiCopies(project: string): number {
  let copies = 0;
  const walk = (dir: string): void => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir)) {
      const at = path.join(dir, entry);
      if (entry === '@opentelemetry' && fs.existsSync(path.join(at, 'api', 'package.json'))) copies++;
      if (entry.startsWith('@')) for (const sub of fs.readdirSync(at)) walk(path.join(at, sub, 'node_modules'));
      else walk(path.join(at, 'node_modules'));
    }
  };
  walk(path.join(project, 'node_modules'));
  return copies;
}

const npm = (args: string[], cwd: string) => spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', env: { ...process.env, npm_config_yes: 'true' } });

function freshProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-install-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'fresh-agent', version: '1.0.0', private: true, type: 'module' }));
  return dir;
}

/** Every file under `dir`: bytes on disk (allocated blocks), apparent bytes, package folders, native binaries. */
function weigh(dir: string): { disk: number; apparent: number; packages: number; natives: string[] } {
  let disk = 0;
  let apparent = 0;
  let packages = 0;
  const natives: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name);
      const stat = fs.lstatSync(file);
      disk += stat.blocks * 512;
      apparent += stat.size;
      if (entry.isDirectory()) {
        if (fs.existsSync(path.join(file, 'package.json')) && path.basename(path.dirname(file)).match(/^(node_modules|@.+)$/)) packages++;
        walk(file);
      } else if (entry.name.endsWith('.node')) natives.push(path.relative(dir, file));
    }
  };
  walk(dir);
  return { disk, apparent, packages, natives };
}

export function benchInstallSize(): InstallSize {
  const root = projectRoot();
  const packs = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-packs-'));
  const made: string[] = [packs];
  try {
    // One pack of the three: the instrumentation's pair, and the analyzer's pair (the contract in both).
    const every = packWorkspaces(root, packs, ['contract', 'instrumentation', 'analyzer']);
    const tarballOf = (name: string): string => path.join(packs, every.find((p) => p.name === name)?.filename ?? name);
    const packed = every.filter((p) => p.name !== '@afterstop/analyzer');
    const tarballs = packed.map((p) => tarballOf(p.name));
    const alone = freshProject();
    made.push(alone);
    const installed = npm(['install', ...tarballs], alone);
    if (installed.status !== 0) throw new Error(`npm install of the packed tarballs failed: ${installed.stderr}`);
    const weight = weigh(path.join(alone, 'node_modules'));
    // Beside a framework as a user adds afterstop to an agent: the framework is there first, then
    // `npm install afterstop`. (In one command with Google ADK, npm places a second @opentelemetry/api:
    // ADK pins 1.9.0 exactly; `oneCommandApiCopies` records it, the check does not fail on it.)
    const beside = [[] as readonly string[], ...BESIDE].map((extra) => {
      const dir = extra.length === 0 ? alone : freshProject();
      if (dir !== alone) made.push(dir);
      const first = extra.length === 0 ? installed : npm(['install', ...extra], dir);
      const r = extra.length === 0 || first.status !== 0 ? first : npm(['install', ...tarballs], dir);
      const ok = r.status === 0;
      // The app runs where nothing else is installed, and beside each API line.
      const recorded = ok && (extra.length === 0 || extra.some((e) => e.startsWith('@opentelemetry/api@'))) ? recordsAStop(dir) : null;
      let oneCommandApiCopies: number | null = null;
      if (extra.length > 0) {
        const together = freshProject();
        made.push(together);
        oneCommandApiCopies = npm(['install', ...tarballs, ...extra], together).status === 0 ? apiCopies(together) : null;
      }
      return { install: ['afterstop', ...extra], ok, error: ok ? '' : r.stderr.split('\n').slice(0, 12).join('\n'), apiCopies: ok ? apiCopies(dir) : 0, recorded, oneCommandApiCopies };
    });
    const analyzer = analyzerInstalled(root, [tarballOf('@afterstop/span-contract'), tarballOf('@afterstop/analyzer')], made);
    return {
      analyzer,
      tarballs: packed.map((p) => ({ name: p.name, bytes: p.size, files: p.entryCount })),
      bytesOnDisk: weight.disk,
      apparentBytes: weight.apparent,
      packages: weight.packages,
      natives: weight.natives,
      beside,
    };
  } finally {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What a check fails on, one line each (none: every target met). */
export function installFailures(r: InstallSize): string[] {
  const failures: string[] = [];
  if (r.bytesOnDisk >= INSTALL_LIMIT_BYTES) failures.push(`installed size ${(r.bytesOnDisk / 1e6).toFixed(2)} MB on disk, the limit is ${INSTALL_LIMIT_BYTES / 1e6} MB`);
  for (const n of r.natives) failures.push(`a native binary in the install: ${n}`);
  for (const b of r.beside) {
    if (!b.ok) failures.push(`npm install ${b.install.join(' ')} failed without --force:\n${b.error}`);
    else if (b.apiCopies !== 1) failures.push(`npm install ${b.install.join(' ')}: ${b.apiCopies} copies of @opentelemetry/api`);
    if (b.recorded === false) failures.push(`npm install ${b.install.join(' ')}: an app under --import afterstop/register did not record its Stop`);
  }
  if (!r.analyzer.reported) failures.push(`the analyzer's tarball, installed alone, did not report g2's ghost commit: ${r.analyzer.error}`);
  return failures;
}

export function describeInstall(r: InstallSize): string {
  const mb = (b: number): string => `${(b / 1e6).toFixed(2)} MB`;
  return [
    `afterstop installed alone: ${mb(r.bytesOnDisk)} on disk (${mb(r.apparentBytes)} of files), ${r.packages} packages, ${r.natives.length} native binaries`,
    ...r.tarballs.map((t) => `  tarball ${t.name}: ${mb(t.bytes)}, ${t.files} files`),
    `@afterstop/analyzer installed alone: ${mb(r.analyzer.bytesOnDisk)} on disk, ${r.analyzer.packages} packages; afterstop leak-report over g2: ${r.analyzer.reported ? 'one ghost commit, as the golden figures say' : 'FAILED'}`,
    ...r.beside.map(
      (b) =>
        `  npm install ${b.install.join(' ')}: ${b.ok ? `resolved, ${b.apiCopies} @opentelemetry/api` : 'FAILED'}${b.recorded === null ? '' : b.recorded ? ', a Stop recorded under --import afterstop/register' : ', NO Stop recorded'}${b.oneCommandApiCopies === null ? '' : ` (in one npm install: ${b.oneCommandApiCopies} @opentelemetry/api)`}`,
    ),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = benchInstallSize();
  process.stdout.write(`${describeInstall(r)}\n`);
  const failures = installFailures(r);
  for (const f of failures) process.stderr.write(`install-size: ${f}\n`);
  if (process.argv.includes('--check') && failures.length > 0) process.exitCode = 1;
}
