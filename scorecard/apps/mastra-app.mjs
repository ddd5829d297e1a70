// A user's app on Mastra (`@mastra/core` agents, an AI SDK provider model), run by the tests as
// `node --import afterstop/register mastra-app.mjs <scenario>` with SIM_URL pointing at the
// simulator. It knows nothing of afterstop. Its send_email tool POSTs to the simulator's effect
// service, which commits 400 ms later whether or not the client is still there.
import { createOpenAI } from '@ai-sdk/openai';
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';

const SIM = process.env.SIM_URL;
// EFFECTS_URL: where its tools' effects go (default the simulator's effect service, SIM_URL; the scorecard's
// traced-service run points it at a service traced by OpenTelemetry, which forwards them there).
const EFFECTS = process.env.EFFECTS_URL ?? SIM;
const scenario = process.argv[2];
const now = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
const out = { scenario, chunks: 0 };

/** Settled when the model's first response arrives: a Stop while the model streams counts from it. */
let modelAnswered;
const firstModelResponse = new Promise((resolve) => (modelAnswered = resolve));
const provider = createOpenAI({
  baseURL: `${SIM}/v1`,
  apiKey: 'sk-test',
  fetch: async (url, init) => {
    const response = await fetch(url, init);
    modelAnswered();
    return response;
  },
});

// Ground truth for orphans: the tool calls that ran, and those whose result (or error) Mastra handed the
// app (the stream's tool-result / tool-error parts, generate's tool results): the history the app keeps.
const ran = [];
const kept = [];

/** Heard of when the e-mail tool starts its POST (a scenario's Stop follows it). */
let onToolStart = () => {};

/** The e-mail tool: `honour` hands Mastra's abort signal to fetch, else it ignores it. */
const sendEmail = (honour) =>
  createTool({
    id: 'send_email',
    description: 'Send an e-mail',
    inputSchema: z.object({ to: z.string() }),
    execute: async (input, context) => {
      ran.push(context?.toolCallId ?? context?.agent?.toolCallId);
      onToolStart();
      // PREPARE_MS: the tool composes the mail first, ignoring the signal, and sends it after a Stop that came meanwhile.
      if (process.env.PREPARE_MS) await new Promise((resolve) => setTimeout(resolve, Number(process.env.PREPARE_MS)));
      const response = await fetch(`${EFFECTS}/effects/send_email?delayMs=400`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
        ...(honour && context?.abortSignal ? { signal: context.abortSignal } : {}),
      });
      return response.json();
    },
  });

const agentWith = (honour, memory) => {
  const agent = new Agent({
    ...(memory ? { memory } : {}),
    id: 'support-agent',
    name: 'support-agent',
    instructions: 'Help the customer.',
    model: provider.chat('gpt-4o'),
    tools: { send_email: sendEmail(honour) },
  });
  // As Mastra's docs set an app up: the agents registered on a Mastra instance.
  const mastra = new Mastra({ agents: { support: agent }, logger: false });
  return mastra.getAgent('support');
};
const EMAIL = '[[tool:send_email {"to":"alice@example.com"}]]';

function pressStop(ms, controller) {
  setTimeout(() => {
    out.stopNs = now();
    controller.abort();
  }, ms);
}

async function streamed(agent, prompt, options) {
  try {
    const output = await agent.stream(prompt, options);
    for await (const chunk of output.fullStream) {
      out.chunks++;
      if (chunk.type === 'tool-result' || chunk.type === 'tool-error') {
        (out.toolParts ??= []).push(chunk.type);
        kept.push(chunk.payload?.toolCallId);
      }
      if (chunk.type === 'abort') out.aborted = true;
    }
    out.finishReason = await output.finishReason;
  } catch (e) {
    out.error = e.name;
  }
}

if (scenario === 'complete') {
  await streamed(agentWith(true), `E-mail the customer. ${EMAIL} [[tokens:5]]`, {});
  const plain = await agentWith(true).generate('Hi [[tokens:7]]');
  out.plain = plain.text.trim().split(/\s+/).length;
} else if (scenario === 'deadline') {
  // No Stop and no signal of the app's: a 3 s answer, under the guard's deadline (AFTERSTOP_GUARD_DEADLINE_MS).
  await streamed(agentWith(true), 'Tell me about refunds. [[tokens:300]]', {});
} else if (scenario === 'text') {
  // Stop while the answer streams (150 ms into its 2.5 s).
  const stop = new AbortController();
  void firstModelResponse.then(() => pressStop(150, stop));
  await streamed(agentWith(true), 'Tell me about refunds. [[tokens:100]]', { abortSignal: stop.signal });
} else if (scenario === 'tool-honours' || scenario === 'tool-ignores') {
  // Stop while the tool's POST is in flight (100 ms into its 400).
  const stop = new AbortController();
  onToolStart = () => pressStop(100, stop);
  await streamed(agentWith(scenario === 'tool-honours'), `E-mail the customer. ${EMAIL}`, { abortSignal: stop.signal });
} else if (scenario === 'tool-honours-next') {
  // With Mastra's memory (its in-memory store): Stop while the tool, honouring the signal, has its POST
  // in flight; then the user's next turn over the same thread.
  const stop = new AbortController();
  onToolStart = () => pressStop(100, stop);
  const agent = agentWith(true, new MockMemory());
  const memory = { thread: 'thread-honours', resource: 'user-1' };
  await streamed(agent, `E-mail the customer. ${EMAIL}`, { abortSignal: stop.signal, memory });
  await new Promise((resolve) => setTimeout(resolve, 500));
  out.nextTurnNs = now();
  try {
    const next = await agent.stream('Did it go out? [[tokens:5]]', { memory });
    for await (const chunk of next.fullStream) if (chunk.type === 'error') out.nextTurnError = String(chunk.payload?.error?.name ?? 'error');
  } catch (e) {
    out.nextTurnError = e.name;
  }
} else if (scenario === 'generate-tool') {
  // generate(), its tool ignoring the signal, stopped while the POST is in flight.
  const stop = new AbortController();
  onToolStart = () => pressStop(100, stop);
  try {
    const result = await agentWith(false).generate(`E-mail the customer. ${EMAIL}`, { abortSignal: stop.signal });
    out.finishReason = result.finishReason;
    for (const r of result.toolResults ?? []) kept.push(r.payload?.toolCallId ?? r.toolCallId);
  } catch (e) {
    out.error = e.name;
  }
}
await new Promise((resolve) => setTimeout(resolve, 500)); // the e-mail service commits what it got
const { flush } = await import('afterstop');
await flush();
out.toolsRan = ran;
out.toolResultsKept = kept;
console.log(JSON.stringify(out));
