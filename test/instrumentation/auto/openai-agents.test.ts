import { describe, expect, it } from 'vitest';
import { agreesWithTruth, sdkApps, toolResults } from '../../helpers/sdk-app.js';

/**
 * The real `@openai/agents` (its runner, its openai client on the Responses
 * API) under `node --import afterstop/register`, stopped at each moment;
 * leak-report over the traces it wrote, checked against the simulator's ledger.
 */
const { app, runApp } = sdkApps();
const run = (scenario: string) => runApp(app('openai-agents-app.mjs'), scenario);

describe('OpenAI Agents JS under afterstop/register', () => {
  it('a streamed turn with a tool and a plain run: two runs named after the agent, the tool result delivered, the app’s results unchanged', async () => {
    const r = await run('complete');
    expect(r.out).toMatchObject({ final: 5, plain: 7 });
    expect(r.requests.map((q) => q.api)).toEqual(['openai-responses', 'openai-responses', 'openai-responses']);
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0, unended_runs: 0 });
    expect(r.report.groups.map((g) => [g.agent, g.framework])).toEqual([['support', 'openai-agents']]);
    expect(Object.entries(await toolResults(r))).toEqual([[r.requests[0]!.toolCalls[0]!.id, 'delivered']]);
  });

  it('Stop (signal) during the model stream: request and ack, the request closed, no ghost', async () => {
    const r = await run('text');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0 });
    agreesWithTruth(r);
  });

  it('Stop by leaving the event stream: the same, recorded as the user’s Stop', async () => {
    const r = await run('stream-cancel');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    agreesWithTruth(r);
  });

  for (const scenario of ['tool-honours', 'tool-ignores', 'plain-tool']) {
    it(`Stop while the tool's POST is in flight (${scenario}): the e-mail is sent anyway, a ghost commit and an orphan; the tool call carries its id`, async () => {
      const r = await run(scenario);
      expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
      expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 1, orphan_tool_calls: 1 });
      // The id the model gave the call, as the simulator recorded it.
      const id = r.requests[0]!.toolCalls[0]!.id;
      expect(Object.entries(await toolResults(r))).toEqual([[id, scenario === 'tool-honours' ? 'cancelled' : 'dropped']]);
      agreesWithTruth(r);
    });
  }

  it('Stop before the tool starts: no effect, nothing to count but the aborted stream', async () => {
    const r = await run('before-tool');
    expect(r.effects).toEqual([]);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, orphan_tool_calls: 0 });
    agreesWithTruth(r);
  });
});
