// The reference agent: written with afterstop's manual API and the openai client, it does
// what the scorecard asks of every framework, to show what cancel depth 4 looks like in code:
// - the run's signal goes to every layer (the model request, the tool's fetch);
// - the loop checks for a cancel between steps (run.checkpoint) and acknowledges it;
// - a commit guard: an irreversible effect is not started once Stop was pressed, and the
//   effect service is asked to abandon an effect whose client left (a two-phase service);
// - an idempotency key per effect (conversation + tool call id), so a retry cannot charge twice;
// - the history is repaired (a synthetic result for each unanswered tool call) before it is kept;
// - a bounded settle (the run's settle deadline).
// Run as `node --import afterstop/register reference-app.mjs <scenario>` with SIM_URL set.
import OpenAI from 'openai';
import { CancelledError, withRun } from 'afterstop';

const SIM = process.env.SIM_URL;
// EFFECTS_URL: where its tools' effects go (default the simulator's effect service, SIM_URL; the scorecard's
// traced-service run points it at a service traced by OpenTelemetry, which forwards them there).
const EFFECTS = process.env.EFFECTS_URL ?? SIM;
const scenario = process.argv[2];
const now = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
const out = { scenario };
const client = new OpenAI({ baseURL: `${SIM}/v1`, apiKey: 'sk-test', maxRetries: 0 });
const conversation = `ref-${scenario}`;
const EMAIL = '[[tool:send_email {"to":"alice@example.com"}]]';
const prompts = {
  text: 'Tell me about refunds. [[tokens:100]]',
  tool: `E-mail the customer. ${EMAIL}`,
  'before-tool': `E-mail the customer. ${EMAIL} [[delay:40]]`,
  parallel: `Do both. [[tool:log_event {"what":"x"}]] ${EMAIL}`,
  'after-commit': `E-mail the customer. ${EMAIL}`,
  steer: `E-mail the customer. ${EMAIL}`,
};
// `steer`: no Stop; the user adds a message while the tool runs, and the loop takes it in between steps.
const stopAt = { text: 150, tool: 250, 'before-tool': 100, parallel: 250, 'after-commit': 300 };
// The effect service's timing per tool: the e-mail commits 400 ms after it is asked (`after-commit`: at
// 50 ms, its receipt 600 ms later); the event log answers in 20 ms.
const effects = { send_email: scenario === 'after-commit' ? 'delayMs=50&replyDelayMs=600' : 'delayMs=400', log_event: 'delayMs=20' };
const toolSpec = (name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });

/** One streamed model step: the text and the tool calls it asked for. */
async function modelStep(messages, signal) {
  const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages, tools: [toolSpec('send_email'), toolSpec('log_event')] }, { signal });
  let text = '';
  const calls = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta ?? {};
    text += delta.content ?? '';
    for (const t of delta.tool_calls ?? []) {
      calls[t.index] ??= { id: t.id, name: t.function?.name, arguments: '' };
      calls[t.index].arguments += t.function?.arguments ?? '';
    }
  }
  return { text, calls: calls.filter(Boolean) };
}

const history = [{ role: 'user', content: prompts[scenario] }];
const ran = [];
try {
  await withRun({ agentName: 'reference', framework: 'reference', conversationId: conversation, settleDeadlineMs: 1000 }, async (run) => {
    const steers = [];
    if (scenario === 'steer') setTimeout(() => steers.push({ id: run.steering.enqueue(), content: 'Also copy Bob. [[tokens:5]]' }), 250);
    else {
      setTimeout(() => {
        out.stopNs = now();
        void run.cancel({ source: 'user', reason: 'Stop button' });
      }, stopAt[scenario]);
    }
    const unanswered = new Set();
    try {
      for (let step = 0; step < 3; step++) {
        run.checkpoint();
        const { text, calls } = await modelStep(history, run.signal);
        history.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}) });
        if (calls.length === 0) break;
        for (const c of calls) unanswered.add(c.id);
        run.checkpoint();
        // The step's tools run side by side; each result goes into the history as it comes.
        const settled = await Promise.allSettled(
          calls.map((c) => {
            const key = `${conversation}:${c.id}`;
            return run.tool({ name: c.name, callId: c.id, effect: 'irreversible', idempotencyKey: key }, async ({ signal, commit }) => {
              ran.push(c.id);
              signal.throwIfAborted(); // the commit guard: nothing irreversible starts after Stop
              const response = await fetch(`${EFFECTS}/effects/${c.name}?${effects[c.name]}&abandonOnDisconnect=1`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'idempotency-key': key },
                body: c.arguments,
                signal,
              });
              const body = await response.json();
              await commit();
              history.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(body) });
              unanswered.delete(c.id);
              return body;
            });
          }),
        );
        const failed = settled.find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
        // The tool batch is whole: queued steering messages go in now, before the next model call.
        for (const s of steers.splice(0)) {
          history.push({ role: 'user', content: s.content });
          run.steering.inject(s.id, 'between_steps');
        }
      }
      for (const s of steers.splice(0)) run.steering.drop(s.id, 'the run ended first');
      // A stream the signal stopped can end quietly (no error): the loop stopped all the same.
      if (run.signal.aborted) run.acknowledge();
    } catch (error) {
      // Stopped: acknowledge, then make the history whole before it is kept.
      if (run.signal.aborted) run.acknowledge();
      if (unanswered.size > 0) {
        // Honest about what is not known: a request already sent may have done its work.
        for (const id of unanswered) history.push({ role: 'tool', tool_call_id: id, content: 'Stopped by the user before its result came back: it may or may not have taken effect.' });
        run.repairHistory({ strategy: 'synthetic_result', toolCallIds: [...unanswered] });
      }
      if (!(error instanceof CancelledError) && !run.signal.aborted) throw error;
    }
  });
} catch (e) {
  out.error = e.name;
}
out.history = history.map((m) => m.role);
// Ground truth for orphans: the tool calls that ran, and those with a result (real or repaired) in the history.
out.toolsRan = ran;
out.toolResultsKept = history.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
// Where the steering message went: after the tool results it must follow (never between a tool call and its result).
const steerAt = history.findIndex((m, i) => i > 0 && m.role === 'user');
if (scenario === 'steer') out.steerInsideToolBatch = steerAt >= 0 && history.slice(steerAt + 1).some((m) => m.role === 'tool');
if (scenario === 'steer') out.steerInjected = steerAt >= 0;
await new Promise((resolve) => setTimeout(resolve, 600)); // what the effect service does with what it got
const { flush } = await import('afterstop');
await flush();
console.log(JSON.stringify(out));
