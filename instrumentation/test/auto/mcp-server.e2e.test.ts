import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { startSimulator, type Simulator } from '../../../analyzer/simulator/index.js';
import { appEnv } from '../../../scorecard/run-app.js';
import { MCP_SERVER_SDK_VERSIONS } from '../../auto/mcp-server.js';

/**
 * The server side of MCP (issue 48): a server built on the real `@modelcontextprotocol/sdk`, in a process of
 * its own under `node --import afterstop/register`, and a client (the SDK's `Client`, or a hand-made
 * Streamable HTTP request) in this process, sending the W3C trace context in `params._meta` by hand. Each
 * `tools/call` the server handles is an `execute_tool` span under the client's span, its e-mail POST a commit
 * marker, the cancel it received a marker, and the simulator's ledger says when the e-mail really went out.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER = fileURLToPath(new URL('../../../test/fixtures/mcp/mail-mcp-server.mjs', import.meta.url));
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01`;
const nowNs = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ tokenDelayMs: 10 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-mcp-server-'));
});
afterAll(async () => {
  await sim.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(versionsDir, { recursive: true, force: true });
});

/**
 * The test's gate: a tool's handler GETs `/started` and waits for its answer (the test's event that the call is
 * in flight, and its hand on when the handler goes on), then GETs `/done` once its e-mail POST was answered.
 */
class Gate {
  private readonly server: http.Server;
  private readonly waiting: { tool: string; res: http.ServerResponse }[] = [];
  private listeners: { path: string; resolve: () => void }[] = [];
  url = '';

  constructor() {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://gate');
      const tool = url.searchParams.get('tool') ?? '';
      if (url.pathname === '/started') this.waiting.push({ tool, res });
      else res.end('ok');
      const told = this.listeners.filter((l) => l.path === url.pathname);
      this.listeners = this.listeners.filter((l) => l.path !== url.pathname);
      for (const l of told) l.resolve();
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** Resolves when a handler GETs `path` (`/started`, `/done`). */
  next(path: '/started' | '/done'): Promise<void> {
    return new Promise((resolve) => this.listeners.push({ path, resolve }));
  }

  /** Let the waiting handlers go on. */
  release(): void {
    for (const w of this.waiting.splice(0)) w.res.end('go');
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

let gate: Gate;
let traces: string;
let runs = 0;
afterEach(async () => {
  await gate?.close();
});

async function newRun(): Promise<{ env: Record<string, string>; effectsBefore: number }> {
  gate = new Gate();
  await gate.start();
  traces = path.join(dir, `run-${++runs}`);
  return { env: { SIM_URL: sim.url, GATE_URL: gate.url, AFTERSTOP_TRACES_DIR: traces }, effectsBefore: sim.ledger.effects.length };
}

/** The SDK's Client connected to the server over stdio (the server a child process under afterstop/register). */
async function stdioClient(env: Record<string, string>, api: 'mcp' | 'server', server = SERVER): Promise<Client> {
  const client = new Client({ name: 'mail-app', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'afterstop/register', server, 'stdio', api], env: appEnv(env) as Record<string, string>, cwd: ROOT, stderr: 'pipe' });
  await client.connect(transport);
  return client;
}

/** The server's spans, once it has exited (a span written twice at exit, as the file exporter may, counted once, as the analyzer does). */
async function serverSpans(): Promise<Awaited<ReturnType<typeof readTraces>>['spans']> {
  const bySpanId = new Map((await readTraces(traces)).spans.map((s) => [s.spanId, s]));
  return [...bySpanId.values()];
}

const toolSpansOf = (spans: Awaited<ReturnType<typeof serverSpans>>) => spans.filter((s) => s.name.startsWith('execute_tool '));

describe('MCP server under afterstop/register: each tools/call a tool call, joined to the client by params._meta.traceparent', () => {
  for (const api of ['mcp', 'server'] as const) {
    it(`${api === 'mcp' ? 'McpServer.registerTool' : 'the low-level Server'} over stdio: the server span's parent is the traceparent's span, its e-mail a commit marker under it`, async () => {
      const { env, effectsBefore } = await newRun();
      const client = await stdioClient(env, api);
      // The low-level Server's tools' annotations are known from its tools/list answers.
      await client.listTools();
      const started = gate.next('/started');
      const result = client.callTool({ name: 'send_email_heedless', arguments: { to: 'alice@example.com' }, _meta: { traceparent: TRACEPARENT } });
      await started;
      gate.release();
      await result;
      await client.close();
      const spans = await serverSpans();
      const [tool] = toolSpansOf(spans);
      expect(tool, 'the server tool span').toBeDefined();
      expect(tool!.name).toBe('execute_tool send_email_heedless');
      expect(tool!.traceId).toBe(TRACE_ID);
      expect(tool!.parentSpanId).toBe(CLIENT_SPAN_ID);
      expect(tool!.attributes).toMatchObject({
        'afterstop.mcp.side': 'server',
        'mcp.method.name': 'tools/call',
        'network.transport': 'pipe',
        'gen_ai.tool.name': 'send_email_heedless',
        'gen_ai.operation.name': 'execute_tool',
        'afterstop.tool.effect': 'irreversible',
        'afterstop.tool.commit.count': 1,
        'afterstop.tool.signal_observed': false,
      });
      expect(tool!.attributes['gen_ai.tool.call.id']).toBe(`mcp:${String(tool!.attributes['jsonrpc.request.id'])}`);
      expect(tool!.attributes['afterstop.run.id']).toBeUndefined();
      expect(tool!.attributes['afterstop.mcp.handler']).toBeUndefined();
      const commits = spans.filter((s) => s.name === 'afterstop.tool.commit');
      expect(commits.map((c) => [c.parentSpanId, c.traceId, c.attributes['afterstop.tool.commit.evidence']])).toEqual([[tool!.spanId, TRACE_ID, 'response']]);
      expect(sim.ledger.effects.slice(effectsBefore).map((e) => e.outcome)).toEqual(['committed']);
    });
  }

  it('no traceparent in _meta: a trace of its own', async () => {
    const { env } = await newRun();
    const client = await stdioClient(env, 'mcp');
    const started = gate.next('/started');
    const result = client.callTool({ name: 'send_email_heedless', arguments: { to: 'bob@example.com' } });
    await started;
    gate.release();
    await result;
    await client.close();
    const [tool] = toolSpansOf(await serverSpans());
    expect(tool!.parentSpanId).toBe('');
    expect(tool!.traceId).not.toBe(TRACE_ID);
    expect(tool!.attributes['afterstop.mcp.side']).toBe('server');
  });
});

describe('MCP server: the cancel it received, and what its handler did after it', () => {
  it('a handler ignoring extra.signal, cancelled by notifications/cancelled: cancel.received, then its e-mail committed after it (finished_after_cancel), as the ledger has it', async () => {
    const { env, effectsBefore } = await newRun();
    const client = await stdioClient(env, 'mcp');
    const controller = new AbortController();
    const started = gate.next('/started');
    const result = client.callTool({ name: 'send_email_heedless', arguments: { to: 'carol@example.com' }, _meta: { traceparent: TRACEPARENT } }, undefined, { signal: controller.signal });
    result.catch(() => {});
    await started;
    // The client's abort writes notifications/cancelled to the pipe; the ping after it is answered once the server has handled it.
    const cancelSentNs = nowNs();
    controller.abort('Stop');
    await expect(result).rejects.toBeDefined();
    await client.ping();
    const done = gate.next('/done');
    gate.release();
    await done;
    await client.close();
    const spans = await serverSpans();
    const [tool] = toolSpansOf(spans);
    const [cancel] = spans.filter((s) => s.name === 'afterstop.mcp.cancel.received');
    const commits = spans.filter((s) => s.name === 'afterstop.tool.commit');
    expect(cancel!.parentSpanId).toBe(tool!.spanId);
    expect(cancel!.attributes).toMatchObject({ 'afterstop.mcp.cancel.via': 'notification', 'jsonrpc.request.id': tool!.attributes['jsonrpc.request.id'] });
    expect(commits).toHaveLength(1);
    expect(commits[0]!.startNs > cancel!.startNs, 'the commit came after the cancel').toBe(true);
    expect(commits[0]!.attributes['afterstop.cancel.state']).toBe('requested');
    expect(tool!.attributes).toMatchObject({ 'afterstop.mcp.handler': 'finished_after_cancel', 'afterstop.tool.signal_observed': false, 'afterstop.mcp.cancel.via': 'notification' });
    expect(tool!.attributes['error.type']).toBeUndefined();
    // The truth: the e-mail went out, after the cancel was sent.
    const effects = sim.ledger.effects.slice(effectsBefore);
    expect(effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(effects[0]!.receivedNs > cancelSentNs).toBe(true);
  });

  it('a handler honouring extra.signal, cancelled by notifications/cancelled: stopped, cancelled, no commit, no e-mail', async () => {
    const { env, effectsBefore } = await newRun();
    const client = await stdioClient(env, 'mcp');
    const controller = new AbortController();
    const started = gate.next('/started');
    const result = client.callTool({ name: 'send_email', arguments: { to: 'dave@example.com' }, _meta: { traceparent: TRACEPARENT } }, undefined, { signal: controller.signal });
    result.catch(() => {});
    await started;
    controller.abort('Stop');
    await expect(result).rejects.toBeDefined();
    await client.ping();
    await client.close();
    const spans = await serverSpans();
    const [tool] = toolSpansOf(spans);
    expect(spans.filter((s) => s.name === 'afterstop.mcp.cancel.received').map((s) => s.attributes['afterstop.mcp.cancel.via'])).toEqual(['notification']);
    expect(spans.filter((s) => s.name === 'afterstop.tool.commit')).toEqual([]);
    expect(tool!.attributes).toMatchObject({ 'afterstop.mcp.handler': 'stopped', 'afterstop.tool.signal_observed': true, 'error.type': 'cancelled', 'afterstop.tool.commit.count': 0 });
    expect(sim.ledger.effects.slice(effectsBefore)).toEqual([]);
  });

  it('Streamable HTTP, the client closing the POST it sent tools/call on: cancel.received via stream_closed; SDK 1.32 does not abort extra.signal, so even a handler honouring it finishes after the cancel', async () => {
    const { env, effectsBefore } = await newRun();
    let cancelSentNs = 0n;
    const server = spawn(process.execPath, ['--import', 'afterstop/register', SERVER, 'http', 'mcp'], { cwd: ROOT, env: appEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines = stdoutLines(server);
      const url = await lines.next();
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
      await (await fetch(url, { method: 'POST', headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
      const controller = new AbortController();
      const started = gate.next('/started');
      const call = await fetch(url, {
        method: 'POST',
        headers: sessionHeaders,
        signal: controller.signal,
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'send_email', arguments: { to: 'erin@example.com' }, _meta: { traceparent: TRACEPARENT } } }),
      });
      expect(call.headers.get('content-type')).toMatch(/text\/event-stream/);
      await started;
      // The Stop: the client closes the request's stream. The server prints `closed` in the same event as afterstop sees it.
      cancelSentNs = nowNs();
      controller.abort();
      expect(await lines.next()).toBe('closed');
      const done = gate.next('/done');
      gate.release();
      await done;
    } finally {
      server.kill('SIGTERM');
      await once(server, 'close');
    }
    const spans = await serverSpans();
    const [tool] = toolSpansOf(spans);
    const [cancel] = spans.filter((s) => s.name === 'afterstop.mcp.cancel.received');
    const commits = spans.filter((s) => s.name === 'afterstop.tool.commit');
    expect(tool!.parentSpanId).toBe(CLIENT_SPAN_ID);
    expect(tool!.attributes).toMatchObject({
      'network.transport': 'tcp',
      'jsonrpc.request.id': '7',
      'gen_ai.tool.call.id': 'mcp:7',
      'afterstop.mcp.handler': 'finished_after_cancel',
      'afterstop.tool.signal_observed': true,
    });
    expect(typeof tool!.attributes['mcp.session.id']).toBe('string');
    expect(cancel!.attributes).toMatchObject({ 'afterstop.mcp.cancel.via': 'stream_closed', 'jsonrpc.request.id': '7' });
    expect(commits).toHaveLength(1);
    expect(commits[0]!.startNs > cancel!.startNs).toBe(true);
    // The truth: the e-mail went out after the client closed the stream.
    const effects = sim.ledger.effects.slice(effectsBefore);
    expect(effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(effects[0]!.receivedNs > cancelSentNs).toBe(true);
  });
});

describe('MCP server, stateless Streamable HTTP as the SDK examples write it (the server closed with the response)', () => {
  it('the client closing the POST: the app closes its server, the SDK aborts extra.signal; a handler honouring it stops: stream_closed, stopped, cancelled, no commit, no e-mail', async () => {
    const { env, effectsBefore } = await newRun();
    const server = spawn(process.execPath, ['--import', 'afterstop/register', SERVER, 'http-stateless', 'mcp'], { cwd: ROOT, env: appEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines = stdoutLines(server);
      const url = await lines.next();
      const controller = new AbortController();
      const started = gate.next('/started');
      const call = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        signal: controller.signal,
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'send_email', arguments: { to: 'gina@example.com' }, _meta: { traceparent: TRACEPARENT } } }),
      });
      expect(call.ok).toBe(true);
      await started;
      controller.abort();
      // The server saw the stream close, then its handler was stopped by its signal.
      expect(await lines.next()).toBe('closed');
      expect(await lines.next()).toBe('stopped');
    } finally {
      server.kill('SIGTERM');
      await once(server, 'close');
    }
    const spans = await serverSpans();
    const [tool] = toolSpansOf(spans);
    expect(tool!.parentSpanId).toBe(CLIENT_SPAN_ID);
    expect(spans.filter((s) => s.name === 'afterstop.mcp.cancel.received').map((s) => s.attributes['afterstop.mcp.cancel.via'])).toEqual(['stream_closed']);
    expect(spans.filter((s) => s.name === 'afterstop.tool.commit')).toEqual([]);
    expect(tool!.attributes).toMatchObject({ 'afterstop.mcp.handler': 'stopped', 'afterstop.tool.signal_observed': true, 'error.type': 'cancelled', 'network.transport': 'tcp' });
    expect(sim.ledger.effects.slice(effectsBefore)).toEqual([]);
  });
});

/** `@modelcontextprotocol/sdk` at another version (its npm alias) beside a copy of the server. */
const versionsDir = path.join(ROOT, '.cache', `mcp-server-versions-${process.pid}`);
function serverWith(alias: string): string {
  const dir = path.join(versionsDir, alias);
  fs.cpSync(path.join(ROOT, 'node_modules', alias), path.join(dir, 'node_modules', '@modelcontextprotocol', 'sdk'), { recursive: true, dereference: true });
  fs.copyFileSync(SERVER, path.join(dir, 'mail-mcp-server.mjs'));
  return path.join(dir, 'mail-mcp-server.mjs');
}

describe(`@modelcontextprotocol/sdk ${MCP_SERVER_SDK_VERSIONS.join(' ')}: 1.0.0, the lowest (low-level Server, stdio)`, () => {
  it('joined by traceparent; a heedless handler after notifications/cancelled: finished_after_cancel, its commit after the cancel', async () => {
    const server = serverWith('modelcontextprotocol-sdk-1.0.0');
    const version = (JSON.parse(fs.readFileSync(path.join(path.dirname(server), 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8')) as { version: string }).version;
    expect(version).toBe('1.0.0');
    const { env, effectsBefore } = await newRun();
    const client = await stdioClient(env, 'server', server);
    await client.listTools();
    const controller = new AbortController();
    const started = gate.next('/started');
    const result = client.callTool({ name: 'send_email_heedless', arguments: { to: 'frank@example.com' }, _meta: { traceparent: TRACEPARENT } }, undefined, { signal: controller.signal });
    result.catch(() => {});
    await started;
    controller.abort('Stop');
    await expect(result).rejects.toBeDefined();
    await client.ping();
    const done = gate.next('/done');
    gate.release();
    await done;
    await client.close();
    const spans = await serverSpans();
    const [tool] = toolSpansOf(spans);
    const [cancel] = spans.filter((s) => s.name === 'afterstop.mcp.cancel.received');
    const commits = spans.filter((s) => s.name === 'afterstop.tool.commit');
    expect(tool!.parentSpanId).toBe(CLIENT_SPAN_ID);
    expect(tool!.attributes).toMatchObject({ 'afterstop.tool.effect': 'irreversible', 'afterstop.mcp.handler': 'finished_after_cancel' });
    expect(cancel!.attributes['afterstop.mcp.cancel.via']).toBe('notification');
    expect(commits[0]!.startNs > cancel!.startNs).toBe(true);
    expect(sim.ledger.effects.slice(effectsBefore).map((e) => e.outcome)).toEqual(['committed']);
  });
});

/** The lines a child writes on stdout, one at a time, as they come. */
function stdoutLines(child: ChildProcess): { next(): Promise<string> } {
  const queue: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, at).trim();
      buffer = buffer.slice(at + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else queue.push(line);
    }
  });
  return { next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiters.push(resolve))) };
}
