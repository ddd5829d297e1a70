// A user's app on Google ADK JS (`@google/adk`), run by the tests as
// `node --import afterstop/register google-adk-app.mjs <scenario>` with SIM_URL pointing
// at the simulator. It knows nothing of afterstop. ADK speaks to Gemini; this app gives its
// agent a model of its own (a BaseLlm, as ADK lets an app) that calls the simulator through
// the openai client. Its send_email tool POSTs to the simulator's effect service, which
// commits 400 ms later whether or not the client waits. afterstop does not instrument ADK: it sees
// ADK's own GenAI spans, and its tool's POST through ADK's `execute_tool` span (a commit of that call).
// STOP_VIA_RUN=1: the app presses Stop through an afterstop run of the manual API (the runner called in
// the run, the run's signal as its abortSignal, Stop = `run.cancel()`), so afterstop knows when.
import { BaseLlm, FunctionTool, InMemoryRunner, LlmAgent } from '@google/adk';
import OpenAI from 'openai';
import { z } from 'zod';

const scenario = process.argv[2];
const now = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
const out = { scenario, events: 0 };
const client = new OpenAI({ baseURL: `${process.env.SIM_URL}/v1`, apiKey: 'sk-test', maxRetries: 0 });

/** ADK's request as Chat Completions messages (text, function calls and their responses). */
function messagesOf(request) {
  const messages = [];
  for (const content of request.contents ?? []) {
    for (const part of content.parts ?? []) {
      if (part.text !== undefined) messages.push({ role: content.role === 'model' ? 'assistant' : 'user', content: part.text });
      else if (part.functionCall) {
        const { id, name, args } = part.functionCall;
        messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args ?? {}) } }] });
      } else if (part.functionResponse) {
        messages.push({ role: 'tool', tool_call_id: part.functionResponse.id, content: JSON.stringify(part.functionResponse.response ?? {}) });
      }
    }
  }
  return messages;
}

/** A model on the simulator through the openai client (not streamed), as an app plugs a non-Gemini model into ADK. */
class SimulatorLlm extends BaseLlm {
  constructor() {
    super({ model: 'gpt-4o' });
  }
  async *generateContentAsync(request, _stream, abortSignal) {
    const tools = Object.values(request.toolsDict ?? {}).map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: { type: 'object', properties: { to: { type: 'string' } } } },
    }));
    const completion = await client.chat.completions.create({ model: this.model, messages: messagesOf(request), tools }, { signal: abortSignal });
    const message = completion.choices[0].message;
    const parts = message.tool_calls?.length ? message.tool_calls.map((c) => ({ functionCall: { id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) } })) : [{ text: message.content ?? '' }];
    yield { content: { role: 'model', parts }, turnComplete: true };
  }
  async connect() {
    throw new Error('not live');
  }
}

/** Heard of when the e-mail tool starts its POST (the Stop follows it). */
let onToolStart = () => {};
const sendEmail = new FunctionTool({
  name: 'send_email',
  description: 'Send an e-mail',
  parameters: z.object({ to: z.string() }),
  // The tool ignores the Stop (ADK hands it no signal): the e-mail goes after it.
  execute: async (input) => {
    onToolStart();
    const response = await fetch(`${process.env.SIM_URL}/effects/send_email?delayMs=400`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    return await response.json();
  },
});
const agent = new LlmAgent({ name: 'support', model: new SimulatorLlm(), instruction: 'Help the customer.', tools: [sendEmail] });
const runner = new InMemoryRunner({ agent, appName: 'support-app' });
const session = await runner.sessionService.createSession({ appName: 'support-app', userId: 'u1' });
const EMAIL = '[[tool:send_email {"to":"alice@example.com"}]]';

async function turn(text, signal) {
  try {
    for await (const _ of runner.runAsync({ userId: 'u1', sessionId: session.id, newMessage: { role: 'user', parts: [{ text }] }, abortSignal: signal })) out.events++;
  } catch (e) {
    out.error = e.name;
  }
}

if (scenario === 'tool-ignores' && process.env.STOP_VIA_RUN) {
  const { withRun } = await import('afterstop');
  await withRun({ framework: 'manual', agentName: 'support' }, async (run) => {
    onToolStart = () =>
      setTimeout(() => {
        out.stopNs = now();
        void run.cancel();
      }, 50);
    await turn(`E-mail the customer. ${EMAIL} [[tokens:5]]`, run.signal);
    if (run.cancelState !== 'none') run.acknowledge();
  });
  await new Promise((resolve) => setTimeout(resolve, 600));
} else if (scenario === 'complete') {
  await turn(`E-mail the customer. ${EMAIL} [[tokens:5]]`);
} else if (scenario === 'tool-ignores') {
  // Stop 50 ms into the tool's POST: the service commits at 400 ms, after Stop.
  const stop = new AbortController();
  onToolStart = () =>
    setTimeout(() => {
      out.stopNs = now();
      stop.abort();
    }, 50);
  await turn(`E-mail the customer. ${EMAIL} [[tokens:5]]`, stop.signal);
  // The e-mail lands after the turn gave up: wait for it, as a server process lives on.
  await new Promise((resolve) => setTimeout(resolve, 600));
} else {
  throw new Error(`unknown scenario ${scenario}`);
}
console.log(JSON.stringify(out));
