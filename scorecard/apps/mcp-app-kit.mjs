// What the scorecard's MCP apps share, none of it afterstop's: how they start the mail server
// (mcp-mail-server.mjs) and hear from it, and when they press Stop. Each app is written as its framework's docs
// write an MCP client; this file is the scorecard's plumbing around it.
// - SERVER_REGISTER=1: the server runs under `node --import afterstop/register` (instrumented); else plain node.
// - MCP_WRAPPER=sh: the stdio server is started through `sh -c 'node …'` (no exec): a process tree, the server a
//   grandchild of the app, as a server started through a shim is.
// - The server's own behaviour (HONOUR, PREPARE_MS, EFFECT) comes through the environment the app hands it.
// - SERVER_FAKETIME=+5s (libfaketime's offset): the server's wall clock is shifted by that much (LD_PRELOAD of
//   Debian's libfaketime in its environment only), as a server on another host with a wrong clock (issue 49).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const SIM = process.env.SIM_URL;
export const SERVER = fileURLToPath(new URL('./mcp-mail-server.mjs', import.meta.url));
export const now = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
/** The user's request: the simulated model calls the e-mail tool (by the name the framework gives it). */
export const emailPrompt = (tool = 'send_email') => `E-mail the customer. [[tool:${tool} {"to":"alice@example.com"}]]`;

/** The node arguments of the server (`--import afterstop/register` when it is instrumented). */
const nodeArgs = (transport) => [...(process.env.SERVER_REGISTER === '1' ? ['--import', 'afterstop/register'] : []), SERVER, transport];

/** The environment that shifts a process's wall clock by `shift` (test/helpers/witness.ts says why monotonic stays real). */
const clockShift = (shift) => (shift ? { LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', FAKETIME: shift, FAKETIME_DONT_FAKE_MONOTONIC: '1' } : {});

/** The stdio server's command line, as an MCP client's config takes it. */
export function stdioServer() {
  if (process.env.MCP_WRAPPER === 'sh') {
    const quoted = [process.execPath, ...nodeArgs('stdio')].map((a) => `'${a}'`).join(' ');
    return { command: 'sh', args: ['-c', quoted] };
  }
  return { command: process.execPath, args: nodeArgs('stdio') };
}

/**
 * The server's events: `started` when its send_email handler began, `done` when it ended (answered or failed).
 * `env` is what the server must get (the app's environment and NOTIFY_URL).
 */
export async function serverEvents() {
  let started;
  let done;
  const events = { started: new Promise((resolve) => (started = resolve)), done: new Promise((resolve) => (done = resolve)) };
  const listener = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.end('ok');
      if (req.url === '/started') started();
      if (req.url === '/done') done();
    });
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const env = { ...process.env, ...clockShift(process.env.SERVER_FAKETIME), NOTIFY_URL: `http://127.0.0.1:${listener.address().port}/` };
  return { ...events, env, close: () => listener.close() };
}

/** The Streamable HTTP server, a child process of the app: its URL, and how to stop it (SIGTERM, as a supervisor does). */
export async function httpServer(env) {
  const child = spawn(process.execPath, nodeArgs('http'), { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout.setEncoding('utf8'), 'data');
  return {
    url: line.trim(),
    close: async () => {
      if (child.exitCode !== null) return;
      const closed = once(child, 'close');
      child.kill('SIGTERM');
      await closed;
    },
  };
}

/** The Stop: 100 ms after the server's send_email started (its POST in flight, or the mail still being composed). */
export function stopWhenToolStarts(events, out) {
  const stop = new AbortController();
  void events.started.then(() =>
    setTimeout(() => {
      out.stopNs = now();
      stop.abort();
    }, 100),
  );
  return stop;
}

/**
 * After the run: the server's handler is done (its effect made or given up), at most 10 s (a call that never
 * reached the server says nothing); then the app may close its client and exit.
 */
export async function settled(events) {
  let timer;
  await Promise.race([events.done, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
  clearTimeout(timer);
}
