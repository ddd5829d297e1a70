// A user's hand-written agent loop: the `openai` SDK's Chat Completions (streamed) and the MCP SDK's own `Client`
// (`@modelcontextprotocol/sdk`), its tools listed from the server and called with `callTool(..., { signal })`, as
// the MCP docs' client quickstart writes it. Run as `node --import afterstop/register mcp-sdk-loop-app.mjs
// <scenario>` with SIM_URL pointing at the simulator; it knows nothing of afterstop. Scenarios: `stdio`
// (StdioClientTransport) and `http` (StreamableHTTPClientTransport). Stopped 100 ms after the server's send_email
// started (mcp-app-kit.mjs).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import OpenAI from 'openai';
import { emailPrompt, SIM, httpServer, serverEvents, settled, stdioServer, stopWhenToolStarts } from './mcp-app-kit.mjs';

const scenario = process.argv[2];
const out = { scenario, chunks: 0 };
// Ground truth for orphans: the tool calls that ran, and those whose result the history keeps.
const ran = [];
const kept = [];

const events = await serverEvents();
const http = scenario === 'http' ? await httpServer(events.env) : undefined;
const client = new Client({ name: 'mail-agent', version: '1.0.0' });
if (http !== undefined) {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
} else {
  await client.connect(new StdioClientTransport({ ...stdioServer(), env: events.env }));
}
const { tools } = await client.listTools();
const openai = new OpenAI({ baseURL: `${SIM}/v1`, apiKey: 'sk-test', maxRetries: 0 });

const stop = stopWhenToolStarts(events, out);
const messages = [{ role: 'user', content: emailPrompt() }];
try {
  for (let turn = 0; turn < 3 && !stop.signal.aborted; turn++) {
    const stream = await openai.chat.completions.create(
      { model: 'gpt-4o', stream: true, messages, tools: tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })) },
      { signal: stop.signal },
    );
    const calls = [];
    let text = '';
    for await (const chunk of stream) {
      out.chunks++;
      const delta = chunk.choices[0]?.delta;
      text += delta?.content ?? '';
      for (const c of delta?.tool_calls ?? []) {
        calls[c.index] ??= { id: c.id, type: 'function', function: { name: '', arguments: '' } };
        calls[c.index].function.name += c.function?.name ?? '';
        calls[c.index].function.arguments += c.function?.arguments ?? '';
      }
    }
    messages.push({ role: 'assistant', content: text || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    if (calls.length === 0) break;
    for (const call of calls) {
      ran.push(call.id);
      const result = await client.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments || '{}') }, undefined, { signal: stop.signal });
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result.content) });
      kept.push(call.id);
    }
  }
} catch (e) {
  out.error = e.name;
}
await settled(events);
out.toolsRan = ran;
out.toolResultsKept = kept;
await client.close();
await http?.close();
events.close();
console.log(JSON.stringify(out));
