import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median, projectRoot } from './child.js';

/** One side of the register-startup bench: its median wall time, its median CPU time (all threads), and the module files it loads. */
export interface StartupSide {
  ms: number;
  cpuMs: number;
  modules: number;
}

export interface RegisterStartupBench {
  runs: number;
  afterstop: StartupSide;
  bareNodeSdk: StartupSide;
}

/** The environment of both sides: ours without OTEL_* or AFTERSTOP_* variables (the defaults: the file exporter), traces to `dir`. */
function cleanEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^(OTEL_|AFTERSTOP_)/.test(name)) env[name] = value;
  return { ...env, AFTERSTOP_TRACES_DIR: dir };
}

/** The CPU time of the whole process (every thread: the ESM loader's too), written to stderr at its exit. */
const CPU_PROBE = "process.on('exit', () => { const r = process.resourceUsage(); process.stderr.write('cpu ' + (r.userCPUTime + r.systemCPUTime) / 1000 + '\\n'); })";

/** Wall time of `node <args> -e <script>` (an empty script by default) from spawn to exit; its stderr. */
function timeNode(args: string[], env: NodeJS.ProcessEnv, script = ''): Promise<{ ms: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...args, '-e', script], { cwd: projectRoot(), env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, stderr });
      else reject(new Error(`bench register-startup: node ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

async function modulesLoaded(imports: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const counter = path.join(projectRoot(), 'bench', 'startup', 'count-modules.mjs');
  const { stderr } = await timeNode(['--import', counter, ...imports.flatMap((m) => ['--import', m])], env);
  const count = /^modules (\d+)$/m.exec(stderr);
  if (count === null) throw new Error(`bench register-startup: no module count in ${stderr}`);
  return Number(count[1]);
}

/**
 * `node --import afterstop/register -e ''` (default environment: the file exporter) against
 * `node --import bench/startup/bare-nodesdk.mjs -e ''` (a bare NodeSDK started: no instrumentations, metric
 * readers or log processors, traces to an exporter that writes nothing): each side's process wall time,
 * paired and alternating (which goes first alternates), after a warm-up of each; medians of `runs`. Then
 * each side's CPU time (every thread), paired the same way in runs of its own, and the module files each
 * loads (bench/startup/count-modules.mjs).
 */
export async function benchRegisterStartup(runs = 21): Promise<RegisterStartupBench> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-startup-'));
  try {
    const env = cleanEnv(dir);
    const afterstop = ['--import', 'afterstop/register'];
    const bare = ['--import', path.join(projectRoot(), 'bench', 'startup', 'bare-nodesdk.mjs')];
    for (const args of [afterstop, bare]) for (let i = 0; i < 2; i++) await timeNode(args, env);
    const times = { afterstop: [] as number[], bare: [] as number[] };
    for (let i = 0; i < runs; i++) {
      const pair =
        i % 2 === 0
          ? ([
              [afterstop, times.afterstop],
              [bare, times.bare],
            ] as const)
          : ([
              [bare, times.bare],
              [afterstop, times.afterstop],
            ] as const);
      for (const [args, into] of pair) into.push((await timeNode(args, env)).ms);
    }
    // CPU time, in runs of their own (the -e '' above stays empty): less moved than wall time by other load on the machine.
    const cpu = { afterstop: [] as number[], bare: [] as number[] };
    for (let i = 0; i < runs; i++) {
      const pair =
        i % 2 === 0
          ? ([
              [afterstop, cpu.afterstop],
              [bare, cpu.bare],
            ] as const)
          : ([
              [bare, cpu.bare],
              [afterstop, cpu.afterstop],
            ] as const);
      for (const [args, into] of pair) {
        const { stderr } = await timeNode(args, env, CPU_PROBE);
        const ms = /^cpu ([\d.]+)$/m.exec(stderr);
        if (ms === null) throw new Error(`bench register-startup: no CPU time in ${stderr}`);
        into.push(Number(ms[1]));
      }
    }
    return {
      runs,
      afterstop: { ms: median(times.afterstop), cpuMs: median(cpu.afterstop), modules: await modulesLoaded(afterstop.slice(1), env) },
      bareNodeSdk: { ms: median(times.bare), cpuMs: median(cpu.bare), modules: await modulesLoaded(bare.slice(1), env) },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
