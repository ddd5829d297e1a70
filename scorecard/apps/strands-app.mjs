// A user's app on Strands Agents TS (`@strands-agents/sdk`), run by the tests as
// `node --import afterstop/register strands-app.mjs <scenario>` with SIM_URL pointing at the
// simulator. It knows nothing of afterstop. Its model is Strands' OpenAIModel on the simulator;
// its send_email tool POSTs to the simulator's effect service, which commits 400 ms later
// whether or not the client waits. afterstop does not instrument Strands: it sees Strands' own GenAI
// spans, and its tool's POST through the foreign `execute_tool` span (a commit of that call).
// HONOUR=1: the tool hands Strands' `cancelSignal` to its fetch. PREPARE_MS: it composes the mail first,
// ignoring the signal, and sends it after a Stop that came meanwhile. STOP_VIA_RUN=1: the app presses
// Stop through an afterstop run of the manual API (the agent invoked in the run, the run's signal as its
// cancelSignal, Stop = `run.cancel()`), so afterstop knows when Stop was pressed.
import { Agent, tool } from '@strands-agents/sdk';
import { OpenAIModel } from '@strands-agents/sdk/models/openai';
import { z } from 'zod';

// EFFECTS_URL: where its tools' effects go (default the simulator's effect service, SIM_URL; the scorecard's
// traced-service run points it at a service traced by OpenTelemetry, which forwards them there).
const EFFECTS = process.env.EFFECTS_URL ?? process.env.SIM_URL;

const scenario = process.argv[2];
const now = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
const out = { scenario };

/** Heard of when the e-mail tool starts its POST (the Stop follows it). */
let onToolStart = () => {};
const sendEmail = tool({
  name: 'send_email',
  description: 'Send an e-mail',
  inputSchema: z.object({ to: z.string() }),
  // The tool ignores the Stop (it does not read context.cancelSignal): the e-mail goes after it.
  callback: async (input, context) => {
    onToolStart();
    if (process.env.PREPARE_MS) await new Promise((resolve) => setTimeout(resolve, Number(process.env.PREPARE_MS)));
    const response = await fetch(`${EFFECTS}/effects/send_email?delayMs=400`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
      ...(process.env.HONOUR && context?.cancelSignal ? { signal: context.cancelSignal } : {}),
    });
    return await response.json();
  },
});
const model = new OpenAIModel({ api: 'chat', modelId: 'gpt-4o', apiKey: 'sk-test', clientConfig: { baseURL: `${process.env.SIM_URL}/v1`, maxRetries: 0 } });
const agent = new Agent({ model, tools: [sendEmail], systemPrompt: 'Help the customer.', printer: false });
const EMAIL = '[[tool:send_email {"to":"alice@example.com"}]]';

if (scenario === 'complete') {
  const result = await agent.invoke(`E-mail the customer. ${EMAIL} [[tokens:5]]`);
  out.stopReason = result.stopReason;
} else if (scenario === 'tool-ignores' && process.env.STOP_VIA_RUN) {
  // The same Stop, pressed through an afterstop run.
  const { withRun } = await import('afterstop');
  await withRun({ framework: 'manual', agentName: 'support' }, async (run) => {
    onToolStart = () =>
      setTimeout(() => {
        out.stopNs = now();
        void run.cancel();
      }, 50);
    try {
      const result = await agent.invoke(`E-mail the customer. ${EMAIL} [[tokens:5]]`, { cancelSignal: run.signal });
      out.stopReason = result.stopReason;
    } catch (e) {
      out.error = e.name;
    }
    if (run.cancelState !== 'none') run.acknowledge();
  });
  await new Promise((resolve) => setTimeout(resolve, 600));
} else if (scenario === 'tool-ignores') {
  // Stop 50 ms into the tool's POST: the service commits at 400 ms, after Stop.
  const stop = new AbortController();
  onToolStart = () =>
    setTimeout(() => {
      out.stopNs = now();
      stop.abort();
    }, 50);
  const result = await agent.invoke(`E-mail the customer. ${EMAIL} [[tokens:5]]`, { cancelSignal: stop.signal });
  out.stopReason = result.stopReason;
  // The e-mail lands after the turn gave up: wait for it, as a server process lives on.
  await new Promise((resolve) => setTimeout(resolve, 600));
} else {
  throw new Error(`unknown scenario ${scenario}`);
}
console.log(JSON.stringify(out));
