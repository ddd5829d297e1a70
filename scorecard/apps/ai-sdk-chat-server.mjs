// A chat backend on the Vercel AI SDK, as its docs write one for node:http: POST /api/chat streams the
// assistant's UI message stream with pipeUIMessageStreamToResponse, and aborts the SDK when the request
// goes away (the browser's Stop). Run by the tests as `node --import afterstop/register
// ai-sdk-chat-server.mjs <scenario>` with SIM_URL pointing at the simulator; the app is its own browser
// too: a fetch that reads the stream and aborts it, 100 ms after the e-mail tool started its POST; then it
// asks the server for its health.
// It knows nothing of afterstop.
import * as http from 'node:http';
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

const server = http.createServer(async (req, res) => {
  if (req.url === '/api/health') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, served: out.served }));
  if (req.method !== 'POST' || req.url !== '/api/chat') return void res.writeHead(404).end();
  let body = '';
  for await (const chunk of req) body += chunk;
  const { messages } = JSON.parse(body);
  const controller = new AbortController();
  // The browser went away before the answer ended: stop the model and the tools.
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const result = streamText({
    model,
    messages: await convertToModelMessages(messages),
    tools,
    stopWhen: stepCountIs(3),
    abortSignal: controller.signal,
    experimental_telemetry: { isEnabled: false, functionId: 'chat-backend', metadata: { chatId: 'chat-1' } },
    onAbort: () => {
      out.aborted++;
      out.onAbortNs = now();
    },
  });
  result.pipeUIMessageStreamToResponse(res);
  out.served++;
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/api/chat`;

/** The browser: sends the conversation, reads the stream, and presses Stop (aborts the fetch) when told. */
async function browser(text, stopAfterToolMs) {
  const stop = new AbortController();
  if (stopAfterToolMs !== undefined)
    onToolStart = () =>
      setTimeout(() => {
        out.stopNs = now();
        stop.abort();
      }, stopAfterToolMs);
  const messages = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }];
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages }), signal: stop.signal });
    for await (const _ of response.body) out.parts++;
  } catch (e) {
    out.error = e.name;
  }
}

if (scenario === 'stop-during-tool') await browser('E-mail the customer. [[tool:send_email {"to":"alice@example.com"}]]', 100);
else await browser('Tell me about refunds. [[tokens:20]]');
// The server keeps serving after the Stop (a second chat would be a model call after Stop in the truth).
out.health = await (await fetch(url.replace('/api/chat', '/api/health'))).json();
out.toolsRan = ran;
out.toolResultsKept = [];
await new Promise((resolve) => setTimeout(resolve, 500)); // the e-mail service commits what it got
server.close();
const { flush } = await import('afterstop');
await flush();
console.log(JSON.stringify(out));
