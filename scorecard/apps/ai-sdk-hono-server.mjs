// A chat backend on the Vercel AI SDK in a Web-standard server, as the AI SDK's and Hono's docs write one:
// Hono on @hono/node-server, POST /api/chat returns result.toUIMessageStreamResponse(), and the SDK is
// aborted by the request's own signal (c.req.raw.signal) when the browser goes away. Run by the tests as
// `node --import afterstop/register ai-sdk-hono-server.mjs` with SIM_URL pointing at the simulator; the app
// is its own browser too: a fetch that reads the stream and aborts it 100 ms after the e-mail tool started
// its POST, then it asks the server for its health. It knows nothing of afterstop.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createOpenAI } from '@ai-sdk/openai';
import { convertToModelMessages, jsonSchema, stepCountIs, streamText, tool } from 'ai';

const SIM = process.env.SIM_URL;
const scenario = process.argv[2] ?? 'stop-during-tool';
const model = createOpenAI({ baseURL: `${SIM}/v1`, apiKey: 'sk-test' }).chat('gpt-4o');
const now = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
const out = { scenario, parts: 0, aborted: 0, served: 0 };
const ran = [];
let onToolStart = () => {};

const tools = {
  send_email: tool({
    description: 'Send an e-mail',
    inputSchema: jsonSchema({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }),
    // Like most tools: it does not take the abort signal.
    execute: async (input, { toolCallId }) => {
      ran.push(toolCallId);
      onToolStart();
      return (await fetch(`${SIM}/effects/send_email?delayMs=400`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) })).json();
    },
  }),
};

const app = new Hono();
app.get('/api/health', (c) => c.json({ ok: true, served: out.served }));
app.post('/api/chat', async (c) => {
  const { messages } = await c.req.json();
  const result = streamText({
    model,
    messages: await convertToModelMessages(messages),
    tools,
    stopWhen: stepCountIs(3),
    abortSignal: c.req.raw.signal,
    experimental_telemetry: { isEnabled: false, functionId: 'hono-chat', metadata: { chatId: 'chat-1' } },
    onAbort: () => {
      out.aborted++;
    },
  });
  out.served++;
  return result.toUIMessageStreamResponse();
});
const server = await new Promise((resolve) => {
  const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
});
const url = `http://127.0.0.1:${server.address().port}/api/chat`;

const stop = new AbortController();
onToolStart = () =>
  setTimeout(() => {
    out.stopNs = now();
    stop.abort();
  }, 100);
try {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'E-mail the customer. [[tool:send_email {"to":"alice@example.com"}]]' }] }] }),
    signal: stop.signal,
  });
  for await (const _ of response.body) out.parts++;
} catch (e) {
  out.error = e.name;
}
out.health = await (await fetch(url.replace('/api/chat', '/api/health'))).json();
out.toolsRan = ran;
out.toolResultsKept = [];
await new Promise((resolve) => setTimeout(resolve, 500)); // the e-mail service commits what it got
server.close();
const { flush } = await import('afterstop');
await flush();
console.log(JSON.stringify(out));
