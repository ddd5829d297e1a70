import { describe, expect, it } from 'vitest';
import { sdkApps, spansNamed } from '../../helpers/sdk-app.js';

/**
 * The guard's deadline through each instrumented framework, as a user runs it:
 * `node --import afterstop/register` with `AFTERSTOP_GUARD_DEADLINE_MS`, an app
 * that never presses Stop and passes no signal of its own, a model answer far
 * longer than the deadline. The run is cancelled with source `timeout`, and the
 * framework stops: the simulator sees the model request closed early.
 */
const { app, runApp } = sdkApps();
const DEADLINE = { AFTERSTOP_GUARD_DEADLINE_MS: '400' };

describe.each([
  ['Vercel AI SDK (streamText)', 'ai-sdk-app.mjs', { PROVIDER: 'openai' }, 300],
  ['OpenAI Agents JS (streamed run)', 'openai-agents-app.mjs', {}, 300],
  ['LangGraph.js (StateGraph agent)', 'langgraph-agent-app.mjs', {}, 300],
  ['Mastra (Agent.stream)', 'mastra-app.mjs', {}, 300],
  ['openai SDK (Chat Completions)', 'openai-app.mjs', {}, 200],
  ['@anthropic-ai/sdk (Messages)', 'anthropic-app.mjs', {}, 200],
])('%s under a guard deadline', (_name, file, env, tokens) => {
  it('cancels the run with source timeout and the deadline on the request; the framework stops the model stream', async () => {
    const r = await runApp(app(file), 'deadline', { ...env, ...DEADLINE });
    expect(r.code, r.stderr).toBe(0);
    const requests = await spansNamed(r, 'afterstop.cancel.request');
    expect(requests.map((a) => [a['afterstop.cancel.source'], a['afterstop.cancel.deadline_ms']])).toEqual([['timeout', 400]]);
    expect(r.report.totals).toMatchObject({ cancelled_runs: 1, deadline_cancels: 1 });
    // The model stream was cut at the deadline, not read to its end.
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expect(r.requests[0]!.outputTokensSent).toBeLessThan(tokens);
  });

  it('without the guard the same app runs to its end: nothing is cancelled', async () => {
    const r = await runApp(app(file), 'deadline', env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.totals).toMatchObject({ cancelled_runs: 0, deadline_cancels: 0 });
    expect(r.requests[0]!.clientClosedEarly).toBe(false);
  });
});
