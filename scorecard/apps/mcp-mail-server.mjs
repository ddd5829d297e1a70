// The MCP server of the scorecard's MCP rows: a mail server on the real `@modelcontextprotocol/sdk` (McpServer), as
// its README writes one. `node mcp-mail-server.mjs stdio` speaks MCP on stdin and stdout; `node mcp-mail-server.mjs
// http` serves Streamable HTTP (stateful sessions, the SDK's own example) on 127.0.0.1 and prints its URL as its
// first stdout line. It knows nothing of afterstop; the apps start it with or without `--import afterstop/register`
// (SERVER_REGISTER=1, mcp-app-kit.mjs).
// - `send_email` (destructiveHint) POSTs to the simulator's effect service (SIM_URL, `EFFECT` its timing, default
//   `delayMs=400`), which records the truth in its ledger. HONOUR=1: the handler hands the request's `extra.signal`
//   (aborted by a `notifications/cancelled` or a closed stream) to fetch; else it ignores it. PREPARE_MS: it composes
//   the mail that long first, heedless of any cancel, then sends it.
// - `lookup` (readOnlyHint) reads, no side effect.
// NOTIFY_URL: the handler tells the app when it `started` and when it is `done` (answered or failed), so that the
// app presses Stop, and closes, on events rather than on the clock.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const SIM = process.env.SIM_URL;
// A GET: the plumbing that tells the app where the handler is, a read, never the tool's commit.
const tell = (what) =>
  process.env.NOTIFY_URL
    ? fetch(`${process.env.NOTIFY_URL}${what}`).then(
        (r) => r.text(),
        () => {},
      )
    : Promise.resolve();

function mailServer() {
  const server = new McpServer({ name: 'mail', version: '1.0.0' });
  server.registerTool('send_email', { description: 'Send an e-mail', inputSchema: { to: z.string() }, annotations: { destructiveHint: true } }, async ({ to }, extra) => {
    await tell('started');
    try {
      if (process.env.PREPARE_MS) await new Promise((resolve) => setTimeout(resolve, Number(process.env.PREPARE_MS)));
      const response = await fetch(`${SIM}/effects/send_email?${process.env.EFFECT ?? 'delayMs=400'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to }),
        ...(process.env.HONOUR === '1' ? { signal: extra.signal } : {}),
      });
      return { content: [{ type: 'text', text: JSON.stringify(await response.json()) }] };
    } finally {
      void tell('done');
    }
  });
  server.registerTool('lookup', { description: 'Look a customer up', inputSchema: { email: z.string() }, annotations: { readOnlyHint: true } }, async ({ email }) => ({
    content: [{ type: 'text', text: JSON.stringify({ email, name: 'Alice' }) }],
  }));
  return server;
}

/** What closes on SIGTERM / SIGINT (as the SDK's examples do: close, then exit). */
const closers = [];
const shutdown = async () => {
  await Promise.allSettled(closers.map((close) => close()));
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

if (process.argv[2] === 'http') {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  /** Session id → its transport (the SDK's stateful example). */
  const transports = new Map();
  const body = async (req) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text === '' ? undefined : JSON.parse(text);
  };
  const httpServer = http.createServer(async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    const parsed = req.method === 'POST' ? await body(req) : undefined;
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (transport === undefined && req.method === 'POST' && isInitializeRequest(parsed)) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => transports.set(id, transport) });
      transport.onclose = () => transport.sessionId !== undefined && transports.delete(transport.sessionId);
      await mailServer().connect(transport);
    }
    if (transport === undefined) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null }));
      return;
    }
    await transport.handleRequest(req, res, parsed);
  });
  closers.push(
    async () => {
      for (const t of transports.values()) await t.close();
    },
    () =>
      new Promise((resolve) => {
        httpServer.close(resolve);
        httpServer.closeAllConnections();
      }),
  );
  httpServer.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${httpServer.address().port}/mcp`));
} else {
  const server = mailServer();
  closers.push(() => server.close());
  await server.connect(new StdioServerTransport());
}
