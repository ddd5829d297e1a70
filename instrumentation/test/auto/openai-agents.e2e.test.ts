import { describe, expect, it } from 'vitest';
import { agreesWithTruth, sdkApps, toolResults, type AppRun } from '../../../test/helpers/sdk-app.js';

/**
 * The real `@openai/agents` (its runner, its openai client on the Responses
 * API) under `node --import afterstop/register`, stopped at each moment;
 * leak-report over the traces it wrote, checked against the simulator's ledger.
 */
const { app, runApp } = sdkApps();
const run = (scenario: string) => runApp(app('openai-agents-app.mjs'), scenario);

/** The tools of the possible ghosts whose request was sent before Stop and answered after it: the round trip holds the Stop. */
const acrossStop = (r: AppRun): (string | null)[] =>
  r.report.findings.filter((f) => f.kind === 'possible_ghost_commit' && f.detail.includes('(its request was sent before Stop and answered after it)')).map((f) => f.tool);

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

  it('Stop by cancelling the reader of result.toStream(): the same', async () => {
    const r = await run('to-stream-cancel');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    agreesWithTruth(r);
  });

  it('Stop while the tool’s POST is in flight, tool ignores the signal: the e-mail is sent (a possible ghost: its round trip holds the Stop), and its real result reaches the history: delivered, no orphan; the next turn goes through', async () => {
    const r = await run('next-turn');
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(r.out).toMatchObject({ historyTypes: ['message', 'function_call', 'function_call_result'], toolOutputs: [['completed', expect.stringContaining('effect_id')]] });
    expect(r.out['nextTurnError']).toBeUndefined();
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 0, repaired_tool_calls: 0 });
    expect(acrossStop(r)).toEqual(['send_email']);
    expect(r.report.totals.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 0, other: 0 });
    expect(Object.entries(await toolResults(r))).toEqual([[r.requests[0]!.toolCalls[0]!.id, 'delivered']]);
    agreesWithTruth(r);
  });

  it('Stop while the tool’s POST is in flight, tool honours the signal: the e-mail is sent all the same, and the history says "aborted": a possible ghost (the POST aborted after it reached the service; the ledger says it committed), and a repair with a synthetic result', async () => {
    const r = await run('next-turn-honours');
    expect(r.effects[0]).toMatchObject({ outcome: 'committed', clientClosedBeforeCommit: true });
    expect(r.out).toMatchObject({ toolOutputs: [['incomplete', expect.stringContaining('aborted')]] });
    expect(r.out['nextTurnError']).toBeUndefined();
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 0, repaired_tool_calls: 1 });
    expect(Object.entries(await toolResults(r))).toEqual([[r.requests[0]!.toolCalls[0]!.id, 'cancelled']]);
    agreesWithTruth(r);
  });

  it('the same Stop with a MemorySession: the session keeps only the user message, so the sent e-mail is unknown to the conversation: dropped, an orphan; a possible ghost (its round trip holds the Stop)', async () => {
    const r = await run('session');
    expect(r.out['sessionTypes']).toEqual(['message']);
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    expect(acrossStop(r)).toEqual(['send_email']);
    expect(Object.entries(await toolResults(r))).toEqual([[r.requests[0]!.toolCalls[0]!.id, 'dropped']]);
    agreesWithTruth(r);
  });

  it('a run that is not streamed, stopped while the tool’s POST is in flight: the promise rejects, the app has no history: a possible ghost (its round trip holds the Stop) and an orphan', async () => {
    const r = await run('plain-tool');
    expect(r.out['error']).toBe('AbortError');
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    expect(acrossStop(r)).toEqual(['send_email']);
    expect(Object.entries(await toolResults(r))).toEqual([[r.requests[0]!.toolCalls[0]!.id, 'dropped']]);
    agreesWithTruth(r);
  });

  it('Stop before the tool starts: no effect, nothing to count but the aborted stream', async () => {
    const r = await run('before-tool');
    expect(r.effects).toEqual([]);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, orphan_tool_calls: 0 });
    agreesWithTruth(r);
  });

  it('Stop while two tools run side by side, one finished: the finished result is kept (delivered), the e-mail in flight goes anyway (a possible ghost: its POST was aborted), cancelled and repaired by the runner’s placeholder: no orphan', async () => {
    const r = await run('parallel');
    expect(r.effects.map((e) => e.name).sort()).toEqual(['log_event', 'send_email']);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 0 });
    expect(Object.values(await toolResults(r)).sort()).toEqual(['cancelled', 'delivered']);
    expect(r.report.totals.repaired_tool_calls).toBe(1);
    agreesWithTruth(r);
  });

  it('a tool that needs approval: the run pauses, the app approves and resumes from its state; the e-mail goes once, nothing cancelled or replayed', async () => {
    const r = await run('interrupt-resume');
    expect(r.out).toMatchObject({ interruptions: 1, toolsRan: [expect.any(String)] });
    expect(r.effects.filter((e) => e.outcome === 'committed')).toHaveLength(1);
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0, ghost_commits: 0, orphan_tool_calls: 0 });
    expect(r.report.totals.replay_duplicates).toBe(0);
  });
});
