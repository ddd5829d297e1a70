// A user's app on OpenAI Agents JS (`@openai/agents`) whose agent gets its tools from an MCP server, as the Agents
// SDK's MCP guide writes it (`mcpServers: [server]`, connect before the run, close after). Run as
// `node --import afterstop/register openai-agents-mcp-app.mjs <scenario>` with SIM_URL pointing at the simulator;
// it knows nothing of afterstop. Scenarios: `stdio` (MCPServerStdio) and `http` (MCPServerStreamableHttp). A
// streamed run, stopped 100 ms after the server's send_email started (mcp-app-kit.mjs).
import { Agent, MCPServerStdio, MCPServerStreamableHttp, run, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { emailPrompt, SIM, httpServer, serverEvents, settled, stdioServer, stopWhenToolStarts } from './mcp-app-kit.mjs';

setTracingDisabled(true); // no network: nothing to export the SDK's own traces to
setDefaultOpenAIClient(new OpenAI({ baseURL: `${SIM}/v1`, apiKey: 'sk-test', maxRetries: 0 }));
const scenario = process.argv[2];
const out = { scenario, events: 0 };
// Ground truth for orphans: the tool calls that ran (the stream's tool_called items), and those with a result in the history.
const ran = [];
const kept = [];

const events = await serverEvents();
const http = scenario === 'http' ? await httpServer(events.env) : undefined;
const server = http !== undefined ? new MCPServerStreamableHttp({ name: 'mail', url: http.url }) : new MCPServerStdio({ name: 'mail', ...stdioServer(), env: events.env });
await server.connect();
const stop = stopWhenToolStarts(events, out);
try {
  const agent = new Agent({ name: 'support', instructions: 'Help the customer.', model: 'gpt-4o', mcpServers: [server] });
  const result = await run(agent, emailPrompt(), { stream: true, signal: stop.signal });
  for await (const event of result) {
    out.events++;
    if (event.type === 'run_item_stream_event' && event.name === 'tool_called') ran.push(event.item.rawItem?.callId);
  }
  await result.completed;
  for (const item of result.history) if (item.type === 'function_call_result') kept.push(item.callId);
} catch (e) {
  out.error = e.name;
}
await settled(events);
out.toolsRan = ran;
out.toolResultsKept = kept;
await server.close();
await http?.close();
events.close();
console.log(JSON.stringify(out));
