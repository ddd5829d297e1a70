import { spawn, type SpawnOptions } from 'node:child_process';

import { CLI_PATH } from '../../docs-tools/screenshot-sources.js';

/** The `afterstop` command as installed: the analyzer package's bin, found through node_modules (the packed copy in the e2e tier). */
export const cliPath = CLI_PATH;

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
  /** Killed past this bound (a generous one: the test then fails on the status, never waits on the clock). */
  boundMs?: number;
}

/**
 * The built CLI in a child process, waited on to its exit: asynchronously (not spawnSync), so that a server
 * the test serves from this process (ClickHouse's HTTP interface, a Pushgateway, a collector) goes on answering.
 */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const spawnOptions: SpawnOptions = { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } };
    if (options.cwd !== undefined) spawnOptions.cwd = options.cwd;
    if (options.uid !== undefined) spawnOptions.uid = options.uid;
    if (options.gid !== undefined) spawnOptions.gid = options.gid;
    const child = spawn(process.execPath, [cliPath, ...args], spawnOptions);
    const bound = setTimeout(() => child.kill('SIGKILL'), options.boundMs ?? 60_000);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (status) => {
      clearTimeout(bound);
      resolve({ status, stdout, stderr });
    });
  });
}
