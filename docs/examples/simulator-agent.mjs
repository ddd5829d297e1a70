// An agent against afterstop's simulator, written as a user would: the openai SDK pointed at the
// simulator, a scripted tool call and a slow stream, a tool whose side effect the simulator records,
// the user's Stop through an AbortController, then the ledger: what really happened.
//
//   npm install openai @afterstop/analyzer
//   node simulator-agent.mjs                                   # starts its own simulator
//   SIMULATOR_URL=http://127.0.0.1:4010 node simulator-agent.mjs   # or uses `afterstop simulator --port 4010`
//
// It prints the ledger's facts as JSON on its last line (docs/simulator.md explains them).
import OpenAI from 'openai';

const given = process.env.SIMULATOR_URL || undefined;
const own = given ? undefined : await (await import('@afterstop/analyzer/simulator')).startSimulator({ tokenDelayMs: 5 });
const sim = given ?? own.url;
const client = new OpenAI({ baseURL: `${sim}/v1`, apiKey: 'not-needed', maxRetries: 0 });
const tools = ['lookup_order', 'send_email'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }));
const ms = (ns) => Math.round(Number(ns) / 1e6);
/** Now, in the ledger's unit: nanoseconds since the Unix epoch. */
const nowNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
/** Tool runs that outlived their turn (their side effects still happen). */
const stragglers = [];

/** The tools. send_email ignores Stop, as many tools do: its request to the e-mail service goes on. */
async function runTool(call) {
  if (call.function.name === 'lookup_order') return JSON.stringify({ order: 42, status: 'shipped' });
  const response = await fetch(`${sim}/effects/send_email?delayMs=300`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `mail:${call.id}` },
    body: call.function.arguments,
  });
  return response.text();
}

/** One turn of the agent loop; `stop` is the user's Stop button. Returns when done or stopped. */
async function turn(history, stop, { onToken = () => {}, onTool = () => {} } = {}) {
  const stopped = new Promise((resolve) => stop.signal.addEventListener('abort', () => resolve('stopped'), { once: true }));
  for (;;) {
    const calls = [];
    try {
      const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: history, tools, stream: true }, { signal: stop.signal });
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta ?? {};
        if (delta.content) onToken(delta.content);
        for (const t of delta.tool_calls ?? []) {
          calls[t.index] ??= { id: t.id, type: 'function', function: { name: t.function.name, arguments: '' } };
          calls[t.index].function.arguments += t.function?.arguments ?? '';
        }
      }
    } catch (error) {
      if (stop.signal.aborted) return 'stopped';
      throw error;
    }
    if (stop.signal.aborted) return 'stopped'; // the SDK ends an aborted stream quietly
    history.push({ role: 'assistant', content: null, ...(calls.length ? { tool_calls: calls } : {}) });
    if (calls.length === 0) return 'completed';
    for (const call of calls) {
      const running = runTool(call);
      stragglers.push(running);
      onTool(call);
      const result = await Promise.race([running, stopped]); // the loop honours Stop, the tool does not
      if (result === 'stopped') return 'stopped';
      history.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
}

// Turn 1: a lookup, then ([[step]]) an e-mail; the user presses Stop as soon as the e-mail tool starts.
const first = new AbortController();
let stopNs = 0n;
const outcome1 = await turn([{ role: 'user', content: 'Where is order 42? Tell Alice. [[tool:lookup_order {"order":42}]] [[step]] [[tool:send_email {"to":"alice@example.com"}]]' }], first, {
  onTool: (call) => {
    if (call.function.name !== 'send_email') return;
    stopNs = nowNs();
    first.abort();
  },
});
console.log(`turn 1: ${outcome1} (Stop pressed while send_email ran)`);

// Turn 2: a slow stream (100 ms to the first token, then 30 ms a token); Stop once 10 tokens arrived.
const second = new AbortController();
let received = 0;
const outcome2 = await turn([{ role: 'user', content: 'Explain the refund policy. [[tokens:200]] [[ttft:100]] [[delay:30]]' }], second, {
  onToken: () => {
    if (++received === 10) second.abort();
  },
});
console.log(`turn 2: ${outcome2} after ${received} tokens`);

// What really happened: wait for the stray e-mail, and for the simulator to finish the 3 requests it was sent.
await Promise.allSettled(stragglers);
let ledger = await (await fetch(`${sim}/ledger`)).json();
while (ledger.modelRequests.length < 3 || ledger.effects.length < 1) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  ledger = await (await fetch(`${sim}/ledger`)).json();
}
await own?.close();

const email = ledger.effects.find((e) => e.name === 'send_email');
const stream = ledger.modelRequests.find((r) => r.clientClosedEarly);
console.log(`ledger: send_email ${email.outcome} ${ms(BigInt(email.committedNs) - stopNs)} ms after Stop`);
console.log(`ledger: the stopped stream generated (billed) ${stream.outputTokensGenerated} tokens, sent ${stream.outputTokensSent}`);
console.log(
  JSON.stringify({
    outcomes: [outcome1, outcome2],
    received,
    stopNs: String(stopNs),
    requests: ledger.modelRequests.map((r) => ({
      id: r.id,
      status: r.status,
      toolCalls: r.toolCalls.map((t) => t.name),
      generated: r.outputTokensGenerated,
      sent: r.outputTokensSent,
      clientClosedEarly: r.clientClosedEarly,
    })),
    effects: ledger.effects.map((e) => ({ id: e.id, name: e.name, outcome: e.outcome, idempotencyKey: e.idempotencyKey, receivedNs: e.receivedNs, committedNs: e.committedNs })),
  }),
);
