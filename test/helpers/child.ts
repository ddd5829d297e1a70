import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { appEnv } from '../../scorecard/run-app.js';

/**
 * Child processes that use the COMPILED package (dist/), run with an inline
 * ESM script. `npm test` builds dist/ before vitest runs.
 */

/** The workspace folder each package is built from, and its name in node_modules. */
const PACKAGE_OF: Record<string, string> = { contract: '@afterstop/span-contract', instrumentation: 'afterstop', analyzer: '@afterstop/analyzer' };

/**
 * file:// URL of a compiled module of a package, `<package folder>/<file under its dist/>` (e.g.
 * `instrumentation/index.js`), found through node_modules as an app finds it: in the e2e tier that is the
 * packed tarball's copy (test/packed-setup.ts). Any other folder is the kit's (`demo/main.js`: dist/demo/main.js).
 */
export function distModule(relative: string): string {
  const [folder = '', ...rest] = relative.split('/');
  const name = PACKAGE_OF[folder];
  // Not a package: the kit's own build (demo, scorecard, bench), in the root's dist/.
  const file = name === undefined ? fileURLToPath(new URL(`../../dist/${relative}`, import.meta.url)) : path.join(path.dirname(createRequire(import.meta.url).resolve(`${name}/package.json`)), 'dist', ...rest);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return pathToFileURL(file).href;
}

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Our own time limit killed it. */
  timedOut: boolean;
  durationMs: number;
}

export interface ChildOptions {
  /** Added to a copy of this process's environment without any OTEL_* or AFTERSTOP_* variable. */
  env?: Record<string, string>;
  cwd?: string;
  nodeArgs?: string[];
  timeoutMs?: number;
}

/** The environment for a child: ours, minus anything that would change afterstop's or the SDK's setup. */
export const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => appEnv(extra);

/** Run `script` as an ES module in a fresh Node process (asynchronously: the test process keeps serving). */
export function runModule(script: string, options: ChildOptions = {}): Promise<ChildResult> {
  return runNode(['--input-type=module', '-e', script], options);
}

/** Run the program `file` (and its `args`) in a fresh Node process, as a user runs it with `node file`. */
export function runFile(file: string, args: string[] = [], options: ChildOptions = {}): Promise<ChildResult> {
  return runNode([file, ...args], options);
}

function runNode(args: string[], options: ChildOptions): Promise<ChildResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...args], {
      env: cleanEnv(options.env),
      cwd: options.cwd ?? os.tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 20_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, durationMs: Date.now() - started });
    });
  });
}

/** The last line of stdout that parses as JSON. */
export function lastJson<T>(result: ChildResult): T {
  const lines = result.stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line) as T;
    } catch {
      // not the report line
    }
  }
  throw new Error(`no JSON line on stdout (code ${result.code}, signal ${result.signal}):\n${result.stdout}\n${result.stderr}`);
}

/**
 * For a child script: `phase(name)` runs 20 agent runs named `name`, each with
 * one tool call returning i * 2, flushes (after each run with `flushEach`,
 * else once at the end) and returns the tool results. The script imports
 * `startRun` and `flush`.
 */
export const phaseFunction = (flushEach = false): string => `
  async function phase(name) {
    const results = [];
    for (let i = 0; i < 20; i++) {
      const run = startRun({ agentName: name, conversationId: name + '-' + i });
      results.push(await run.tool({ name: 'lookup', callId: name + '-' + i }, async () => i * 2));
      run.end();
      ${flushEach ? 'await flush(1500);' : ''}
    }
    ${flushEach ? '' : 'await flush(1500);'}
    return results;
  }
`;

/** A fresh temporary folder for each test of the file (removed after it): call at the top of the file. */
export function tempCwd(): () => string {
  let dir = '';
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-'));
}
