// A user's app on LangChain 1 (`createAgent`) whose tools come from an MCP server through
// `@langchain/mcp-adapters`' MultiServerMCPClient, as LangChain's MCP docs write it (`tools: await
// client.getTools()`). Run as `node --import afterstop/register langchain-mcp-app.mjs <scenario>` with SIM_URL
// pointing at the simulator; it knows nothing of afterstop. Scenarios: `stdio` and `http` (Streamable HTTP). The
// agent streamed with the app's signal (streamMode "messages", as a chat UI streams it: `values` would have the
// model invoked, counting tokens with tiktoken over the network), stopped 100 ms after the server's send_email
// started (mcp-app-kit.mjs).
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { emailPrompt, SIM, httpServer, serverEvents, settled, stdioServer, stopWhenToolStarts } from './mcp-app-kit.mjs';

const scenario = process.argv[2];
const out = { scenario, chunks: 0 };
// Ground truth for orphans: the tool calls the model made (its message chunks' tool calls), and those whose
// ToolMessage the stream handed the app: the conversation the app keeps.
const ran = [];
const kept = [];

const events = await serverEvents();
const http = scenario === 'http' ? await httpServer(events.env) : undefined;
const client = new MultiServerMCPClient({
  mcpServers: { mail: http !== undefined ? { transport: 'http', url: http.url } : { transport: 'stdio', ...stdioServer(), env: events.env } },
});
const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'sk-test', configuration: { baseURL: `${SIM}/v1` }, streaming: true, maxRetries: 0 });
const agent = createAgent({ model, tools: await client.getTools() });

const stop = stopWhenToolStarts(events, out);
try {
  const stream = await agent.stream({ messages: [{ role: 'user', content: emailPrompt() }] }, { signal: stop.signal, streamMode: 'messages' });
  for await (const [message] of stream) {
    out.chunks++;
    for (const call of message.tool_call_chunks ?? []) if (call.id) ran.push(call.id);
    if (message.tool_call_id !== undefined) kept.push(message.tool_call_id);
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
