// An AI SDK agent against afterstop's simulator, as a user writes one: streamText with two tools, the
// user's Stop through an AbortController, and a tool that does not listen to it. Run it under afterstop's
// instrumentation, then read the leak report and the simulator's ledger side by side.
//
//   npm install afterstop @afterstop/analyzer ai @ai-sdk/openai zod
//   node --import afterstop/register ai-sdk-agent.mjs      # starts its own simulator (or SIMULATOR_URL)
//   npx afterstop leak-report afterstop-traces
//   npx afterstop explain 1 afterstop-traces
//
// It prints the ledger's facts as JSON on its last line (docs/simulator.md explains them).
import { createOpenAI } from '@ai-sdk/openai';
import { stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

const given = process.env.SIMULATOR_URL || undefined;
const own = given ? undefined : await (await import('@afterstop/analyzer/simulator')).startSimulator({ tokenDelayMs: 5 });
const sim = given ?? own.url;
const openai = createOpenAI({ baseURL: `${sim}/v1`, apiKey: 'not-needed' });
/** Now, in the ledger's unit: nanoseconds since the Unix epoch. */
const nowNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
const ms = (ns) => Math.round(Number(ns) / 1e6);
/** Tool runs that outlived their turn (their side effects still happen). */
const stragglers = [];

// Turn 1: a lookup, then an e-mail. The user presses Stop as the e-mail tool starts; the tool does not
// listen (its abortSignal is not passed on), so the e-mail still goes: a ghost commit.
const first = new AbortController();
let stopNs = 0n;
const tools = {
  lookup_order: tool({ description: 'Look an order up', inputSchema: z.object({ order: z.number() }), execute: async ({ order }) => ({ order, status: 'shipped' }) }),
  send_email: tool({
    description: 'Send an e-mail',
    inputSchema: z.object({ to: z.string() }),
    execute: ({ to }) => {
      stopNs = nowNs();
      first.abort(); // the user's Stop, while the tool runs
      const sending = fetch(`${sim}/effects/send_email?delayMs=300`, { method: 'POST', body: JSON.stringify({ to }) }).then((r) => r.text());
      stragglers.push(sending);
      return sending;
    },
  }),
};
const turn1 = streamText({
  model: openai.chat('gpt-4o'),
  prompt: 'Where is order 42? Tell Alice. [[tool:lookup_order {"order":42}]] [[step]] [[tool:send_email {"to":"alice@example.com"}]]',
  tools,
  stopWhen: stepCountIs(5),
  abortSignal: first.signal,
});
try {
  await turn1.consumeStream();
  await turn1.text;
} catch {
  // an aborted stream rejects its promises: the turn was stopped
}
console.log(`turn 1: ${first.signal.aborted ? 'stopped' : 'completed'} (Stop pressed while send_email ran)`);

// Turn 2: a slow stream (100 ms to the first token, then 30 ms a token); Stop once 10 tokens arrived.
const second = new AbortController();
let received = 0;
const turn2 = streamText({ model: openai.chat('gpt-4o'), prompt: 'Explain the refund policy. [[tokens:200]] [[ttft:100]] [[delay:30]]', abortSignal: second.signal });
try {
  for await (const _ of turn2.textStream) if (++received === 10) second.abort();
} catch {
  // stopped
}
console.log(`turn 2: stopped after ${received} tokens`);

// What really happened: wait for the stray e-mail, and for the simulator to finish the requests it was sent.
await Promise.allSettled(stragglers);
let ledger = await (await fetch(`${sim}/ledger`)).json();
while (ledger.modelRequests.length < 3 || ledger.effects.length < 1 || ledger.modelRequests.some((r) => r.endNs === null)) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  ledger = await (await fetch(`${sim}/ledger`)).json();
}
await own?.close();

const email = ledger.effects.find((e) => e.name === 'send_email');
const stream = ledger.modelRequests.find((r) => r.clientClosedEarly);
console.log(`ledger: send_email ${email.outcome} ${ms(BigInt(email.committedNs) - stopNs)} ms after Stop`);
console.log(`ledger: the stopped stream generated (billed) ${stream.outputTokensGenerated} tokens, sent ${stream.outputTokensSent}`);
console.log(JSON.stringify({ received, stopNs: String(stopNs), effects: ledger.effects.map((e) => ({ name: e.name, outcome: e.outcome, committedNs: e.committedNs })) }));
