// A user's app on the Vercel AI SDK 6 whose tools come from an MCP server through `@ai-sdk/mcp`, as the AI SDK's
// MCP docs write it. Run as `node --import afterstop/register ai-sdk-mcp-app.mjs <scenario>` with SIM_URL pointing
// at the simulator; it knows nothing of afterstop. Scenarios: `stdio` (streamText, the server a child process over
// stdio) and `http` (ToolLoopAgent, the server over Streamable HTTP). Stop comes 100 ms after the server's
// send_email started (mcp-app-kit.mjs; the server's behaviour by its environment).
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { createOpenAI } from '@ai-sdk/openai';
import { ToolLoopAgent, stepCountIs, streamText } from 'ai';
import { emailPrompt, SIM, httpServer, serverEvents, settled, stdioServer, stopWhenToolStarts } from './mcp-app-kit.mjs';

const scenario = process.argv[2];
const model = createOpenAI({ baseURL: `${SIM}/v1`, apiKey: 'sk-test' }).chat('gpt-4o');
const out = { scenario, parts: 0 };
// Ground truth for orphans: the tool calls that ran, and those whose result reached the conversation.
const ran = [];
const kept = [];

const events = await serverEvents();
const http = scenario === 'http' ? await httpServer(events.env) : undefined;
const client = await createMCPClient({
  transport: http !== undefined ? { type: 'http', url: http.url } : new Experimental_StdioMCPTransport({ ...stdioServer(), env: events.env }),
});
const tools = await client.tools();

const stop = stopWhenToolStarts(events, out);
try {
  const result =
    scenario === 'http'
      ? await new ToolLoopAgent({ model, tools, stopWhen: stepCountIs(3) }).stream({ prompt: emailPrompt(), abortSignal: stop.signal })
      : streamText({ model, tools, prompt: emailPrompt(), abortSignal: stop.signal, stopWhen: stepCountIs(3) });
  for await (const part of result.fullStream) {
    out.parts++;
    if (part.type === 'tool-call') ran.push(part.toolCallId);
    if (part.type === 'tool-result') kept.push(part.toolCallId);
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
