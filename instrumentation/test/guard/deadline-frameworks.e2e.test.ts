import { describe, expect, it } from 'vitest';
import { sdkApps, spansNamed } from '../../../test/helpers/sdk-app.js';
import { versionedApps, versionIn } from '../../../test/helpers/versioned-app.js';

/**
 * The guard's deadline through each instrumented framework, as a user runs it:
 * `node --import afterstop/register` with `AFTERSTOP_GUARD_DEADLINE_MS`, an app
 * that never presses Stop and passes no signal of its own, a model answer far
 * longer than the deadline. The run is cancelled with source `timeout`, and the
 * framework stops: the simulator sees the model request closed early.
 */
const { app, runApp } = sdkApps();
const versioned = versionedApps();
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
    // The framework got the run's signal: the deadline was delivered, and the framework's stop acknowledges it.
    expect(requests.map((a) => [a['afterstop.cancel.source'], a['afterstop.cancel.deadline_ms'], a['afterstop.cancel.delivered']])).toEqual([['timeout', 400, true]]);
    expect(r.report.totals).toMatchObject({ cancelled_runs: 1, deadline_cancels: 1, unacknowledged_cancels: 0 });
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

/**
 * The AI SDK's own agent class (ToolLoopAgent in 6 and 7, Experimental_Agent in 5): its generate and
 * stream put the call's own abortSignal over the arguments prepareCall made, so the deadline reaches
 * the SDK only through the call's options.
 */
describe.each([
  ['6', {}],
  ['7.0.173', { ai: 'ai-7.0.173', '@ai-sdk/openai': 'ai-sdk-openai-4.0.118' }],
  ['7.0.0', { ai: 'ai-7.0.0', '@ai-sdk/openai': 'ai-sdk-openai-4.0.0' }],
  ['5.0.0', { ai: 'ai-5.0.0', '@ai-sdk/openai': 'ai-sdk-openai-2.0.0' }],
] as const)('the AI SDK %s agent class under a guard deadline', (version, packages) => {
  const file = (): string => (Object.keys(packages).length === 0 ? app('ai-sdk-app.mjs') : versioned('ai-sdk-app.mjs', packages));

  it('runs the version it names', () => {
    expect(versionIn(file(), 'ai').startsWith(version)).toBe(true);
  });

  for (const scenario of ['agent-deadline-stream', 'agent-deadline-generate']) {
    it(`${scenario.slice(15)}(): the deadline reaches the agent through the call's abortSignal; the model stream is closed early, the run cancelled with source timeout and acknowledged`, async () => {
      const r = await runApp(file(), scenario, { PROVIDER: 'openai', ...DEADLINE });
      expect(r.code, r.stderr).toBe(0);
      const requests = await spansNamed(r, 'afterstop.cancel.request');
      expect(requests.map((a) => [a['afterstop.cancel.source'], a['afterstop.cancel.deadline_ms'], a['afterstop.cancel.delivered']])).toEqual([['timeout', 400, true]]);
      expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, deadline_cancels: 1, unacknowledged_cancels: 0 });
      expect(r.report.groups.map((g) => g.agent)).toEqual(['support-agent']);
      expect(r.requests).toHaveLength(1);
      expect(r.requests[0]!.clientClosedEarly).toBe(true);
      expect(r.requests[0]!.outputTokensSent).toBeLessThan(300);
    });
  }
});

/**
 * Where afterstop has no signal to hand the framework, the deadline passes and nobody is told: the
 * cancel request says so (`afterstop.cancel.delivered` false), the framework's end is no
 * acknowledgement, and the run ends as it would have (completed), its effects after the deadline
 * counted as after a Stop that was never heard.
 */
describe('LlamaIndex Workflows under a guard deadline (no cancel to give it)', () => {
  it('the cancel request is marked not delivered, nothing acknowledges it, the workflow runs to its end and the run is not recorded as cancelled', async () => {
    const r = await runApp(app('llamaindex-app.mjs'), 'complete', { AFTERSTOP_GUARD_DEADLINE_MS: '150' });
    expect(r.code, r.stderr).toBe(0);
    // Ground truth: the workflow went on past the deadline, both effects committed.
    expect(r.effects.map((e) => [e.name, e.outcome])).toEqual([
      ['charge', 'committed'],
      ['notify', 'committed'],
    ]);
    expect(r.out['events']).toBeGreaterThan(0);
    const requests = await spansNamed(r, 'afterstop.cancel.request');
    expect(requests.map((a) => [a['afterstop.cancel.source'], a['afterstop.cancel.deadline_ms'], a['afterstop.cancel.delivered']])).toEqual([['timeout', 150, false]]);
    expect(await spansNamed(r, 'afterstop.cancel.ack')).toEqual([]);
    expect((await spansNamed(r, 'invoke_agent')).map((a) => a['afterstop.run.outcome'])).toEqual(['completed']);
    expect(r.report.totals).toMatchObject({ runs: 1, deadline_cancels: 1, unacknowledged_cancels: 1 });
  });
});
