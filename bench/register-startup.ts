import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median, projectRoot } from './child.js';

/** One side of the register-startup bench: its median wall time and the module files it loads. */
export interface StartupSide {
  ms: number;
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

/** Wall time of `node <args> -e ''` from spawn to exit; its stderr. */
function timeNode(args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...args, '-e', ''], { cwd: projectRoot(), env, stdio: ['ignore', 'ignore', 'pipe'] });
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
 * paired and alternating (which goes first alternates), after a warm-up of each; medians of `runs`. And
 * the module files each loads (bench/startup/count-modules.mjs).
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
      const pair = i % 2 === 0 ? ([[afterstop, times.afterstop], [bare, times.bare]] as const) : ([[bare, times.bare], [afterstop, times.afterstop]] as const);
      for (const [args, into] of pair) into.push((await timeNode(args, env)).ms);
    }
    return {
      runs,
      afterstop: { ms: median(times.afterstop), modules: await modulesLoaded(afterstop.slice(1), env) },
      bareNodeSdk: { ms: median(times.bare), modules: await modulesLoaded(bare.slice(1), env) },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
