import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_THREAD_POOL_SIZE, useCliThreadPool } from '../../cli/thread-pool.js';
import { distModule } from '../../../test/helpers/child.js';

/**
 * The command runs DuckDB's statements on one libuv thread (each thread that ran a large statement keeps
 * memory of its own), unless the user sized the pool. Observed in the real command's process: a module
 * loaded first (`--import`) counts its libuv worker threads as it exits.
 */
const CLI = fileURLToPath(distModule('analyzer/cli/main.js'));
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-pool-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const counter = path.join(dir, 'count-workers.mjs');
fs.writeFileSync(
  counter,
  `import * as fs from 'node:fs';
process.on('exit', () => {
  const names = fs.readdirSync('/proc/self/task').map((t) => { try { return fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim(); } catch { return ''; } });
  fs.writeFileSync(process.env.COUNT_TO, String(names.filter((n) => n === 'libuv-worker').length));
});
`,
);

/** The libuv worker threads of a leak report run by the command, with `pool` as UV_THREADPOOL_SIZE (undefined: unset). */
function workersOfReport(pool: string | undefined): number {
  const out = path.join(dir, `workers-${pool ?? 'unset'}`);
  const env: NodeJS.ProcessEnv = { ...process.env, COUNT_TO: out };
  delete env['UV_THREADPOOL_SIZE'];
  if (pool !== undefined) env['UV_THREADPOOL_SIZE'] = pool;
  const run = spawnSync(process.execPath, ['--import', counter, CLI, 'leak-report', `${golden}g2-ghost-email.jsonl`, '--db', path.join(dir, `db-${pool ?? 'unset'}`), '--format', 'json'], { encoding: 'utf8', env });
  expect(run.status, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toHaveProperty('totals');
  return Number(fs.readFileSync(out, 'utf8'));
}

describe.runIf(process.platform === 'linux')("the command's thread pool", () => {
  it('a leak report runs on one libuv worker thread when the user did not size the pool', () => {
    expect(workersOfReport(undefined)).toBe(Number(CLI_THREAD_POOL_SIZE));
  });

  it('keeps the size the user set', () => {
    expect(workersOfReport('3')).toBe(3);
  });
});

describe('useCliThreadPool', () => {
  it('sets UV_THREADPOOL_SIZE when it is unset or empty, and never replaces a value', () => {
    const unset: NodeJS.ProcessEnv = {};
    useCliThreadPool(unset);
    expect(unset['UV_THREADPOOL_SIZE']).toBe(CLI_THREAD_POOL_SIZE);
    const empty: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '' };
    useCliThreadPool(empty);
    expect(empty['UV_THREADPOOL_SIZE']).toBe(CLI_THREAD_POOL_SIZE);
    const set: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '8' };
    useCliThreadPool(set);
    expect(set['UV_THREADPOOL_SIZE']).toBe('8');
  });
});
