// A user's app on Mastra whose agent gets its tools from an MCP server through `@mastra/mcp`'s MCPClient, as
// Mastra's MCP docs write it (`tools: await mcp.listTools()`). Run as `node --import afterstop/register
// mastra-mcp-app.mjs <scenario>` with SIM_URL pointing at the simulator; it knows nothing of afterstop. Scenarios:
// `stdio` (the server a command) and `http` (the server a URL, Streamable HTTP). Agent.stream, stopped 100 ms after
// the server's send_email started (mcp-app-kit.mjs).
import { createOpenAI } from '@ai-sdk/openai';
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { MCPClient } from '@mastra/mcp';
import { emailPrompt, SIM, httpServer, serverEvents, settled, stdioServer, stopWhenToolStarts } from './mcp-app-kit.mjs';

const scenario = process.argv[2];
const out = { scenario, chunks: 0 };
// Ground truth for orphans: the tool calls that ran, and those whose result (or error) Mastra handed the app (the
// stream's tool-result / tool-error parts): the history the app keeps.
const ran = [];
const kept = [];

const events = await serverEvents();
const http = scenario === 'http' ? await httpServer(events.env) : undefined;
const mcp = new MCPClient({ id: 'mail-client', servers: { mail: http !== undefined ? { url: new URL(http.url) } : { ...stdioServer(), env: events.env } } });
const agent = new Agent({
  id: 'support-agent',
  name: 'support-agent',
  instructions: 'Help the customer.',
  model: createOpenAI({ baseURL: `${SIM}/v1`, apiKey: 'sk-test' }).chat('gpt-4o'),
  tools: await mcp.listTools(),
});
const mastra = new Mastra({ agents: { support: agent }, logger: false });

const stop = stopWhenToolStarts(events, out);
try {
  const output = await mastra.getAgent('support').stream(emailPrompt('mail_send_email'), { abortSignal: stop.signal });
  for await (const chunk of output.fullStream) {
    out.chunks++;
    if (chunk.type === 'tool-call') ran.push(chunk.payload?.toolCallId);
    if (chunk.type === 'tool-result' || chunk.type === 'tool-error') {
      (out.toolParts ??= []).push(chunk.type);
      kept.push(chunk.payload?.toolCallId);
    }
  }
  out.finishReason = await output.finishReason;
} catch (e) {
  out.error = e.name;
}
await settled(events);
out.toolsRan = ran;
out.toolResultsKept = kept;
await mcp.disconnect();
await http?.close();
events.close();
console.log(JSON.stringify(out));
