/**
 * A command run in a real terminal: a tmux session of a fixed size, the screen read back with its colours
 * (`capture-pane -e`) once the command signals that it is done (`tmux wait-for`), never after a sleep.
 * The server is this script's own child (`tmux -D`, on a socket in a temporary folder): no other tmux is
 * touched, and it needs no daemon() (which refuses a /dev/null that is not a device, as in some sandboxes).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Quoted for sh. */
const sh = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

export interface TmuxRun {
  /** The program and its arguments. */
  argv: string[];
  /** Shown as the prompt's line above the output, as if typed. */
  prompt: string;
  cwd: string;
  /** The server's environment, which the pane starts from (NO_COLOR is removed for the command). */
  env: NodeJS.ProcessEnv;
  columns: number;
  rows: number;
}

/** Resolves once `file` exists: a watch on its folder, checked again after the watch starts. */
function created(file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = fs.watch(path.dirname(file), () => {
      if (fs.existsSync(file)) watcher.close(), resolve();
    });
    if (fs.existsSync(file)) watcher.close(), resolve();
  });
}

/** The pane's text with ANSI escapes (its history too, when the output was longer than the pane). */
export async function runInTmux(run: TmuxRun): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-tmux-'));
  const socket = path.join(dir, 'socket');
  const env: NodeJS.ProcessEnv = { ...run.env, LC_ALL: 'C.UTF-8', TERM: 'xterm-256color' };
  delete env['TMUX'];
  const tmux = (...args: string[]): string => {
    // The bound is a safety net for a hung tmux, not a wait: every step returns on an event.
    const r = spawnSync('tmux', ['-u', '-S', socket, ...args], { cwd: run.cwd, env, encoding: 'utf8', timeout: 60_000 });
    if (r.error !== undefined) throw new Error(`tmux ${args[0]}: ${r.error.message} (is tmux installed?)`);
    if (r.status !== 0) throw new Error(`tmux ${args[0]} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const ready = created(socket);
  const server = spawn('tmux', ['-u', '-D', '-f', '/dev/null', '-S', socket], { cwd: run.cwd, env, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => server.on('close', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    server.on('error', (error) => reject(new Error(`tmux: ${error.message} (is tmux installed?)`)));
    void exited.then(() => reject(new Error('the tmux server exited before it listened')));
  });
  try {
    await Promise.race([ready, failed]);
    // The pane: the prompt, the command as typed (colour and width from the terminal), then "done"; then it holds the screen until "release", so that
    // the capture reads a live pane.
    const script = [`printf '%s\\n' ${sh(`$ ${run.prompt}`)}`, `env -u NO_COLOR -u FORCE_COLOR -u COLUMNS ${run.argv.map(sh).join(' ')}`, 'tmux wait-for -S afterstop-done', 'tmux wait-for afterstop-release'].join('; ');
    tmux('new-session', '-d', '-s', 'shot', '-x', String(run.columns), '-y', String(run.rows), '-c', run.cwd, script);
    tmux('wait-for', 'afterstop-done');
    const screen = tmux('capture-pane', '-p', '-e', '-t', 'shot', '-S', '-', '-E', '-');
    tmux('wait-for', '-S', 'afterstop-release');
    return screen;
  } finally {
    spawnSync('tmux', ['-S', socket, 'kill-server'], { env, stdio: 'ignore' });
    if (server.exitCode === null && server.signalCode === null) server.kill();
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
