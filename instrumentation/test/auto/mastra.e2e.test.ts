import { describe, expect, it } from 'vitest';
import { agreesWithTruth, expectClosedByStop, sdkApps, spansNamed, toolResults, truthAfterStop, type AppRun } from '../../../test/helpers/sdk-app.js';
import { versionedApps, versionIn } from '../../../test/helpers/versioned-app.js';

/**
 * Mastra (`@mastra/core` agents with an AI SDK provider model, registered on a
 * Mastra instance as its docs set an app up) under `node --import
 * afterstop/register`, stopped at each moment the scorecard uses, at the
 * newest 1.x and at the first 1.x on the registry; leak-report over the
 * traces it wrote, checked against what the simulator saw happen.
 */
const { app, runApp } = sdkApps();
const versioned = versionedApps();

/** The tools of the possible ghosts whose request was sent before Stop and answered after it: the round trip holds the Stop. */
const acrossStop = (r: AppRun): (string | null)[] =>
  r.report.findings.filter((f) => f.kind === 'possible_ghost_commit' && f.detail.includes('(its request was sent before Stop and answered after it)')).map((f) => f.tool);

describe.each([
  ['1.71.0', (): string => app('mastra-app.mjs')],
  ['1.0.4', (): string => versioned('mastra-app.mjs', { '@mastra/core': 'mastra-core-1.0.4' })],
])('Mastra %s under afterstop/register', (version, file) => {
  const run = (scenario: string, env: Record<string, string> = {}) => runApp(file(), scenario, env);

  it('runs the version it names', () => {
    expect(versionIn(file(), '@mastra/core')).toBe(version);
  });

  it('a streamed turn with a tool, read to its end, and a generate call: two runs named by the agent, nothing cancelled, the result delivered', async () => {
    const r = await run('complete');
    expect(r.out).toMatchObject({ plain: 7 });
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0, ghost_commits: 0, orphan_tool_calls: 0, unended_runs: 0 });
    expect(r.report.groups.map((g) => [g.framework, g.agent])).toEqual([['mastra', 'support-agent']]);
    expect(Object.values(await toolResults(r))).toEqual(['delivered']);
  });

  it('Stop (abortSignal) during the text stream: requested, acknowledged, the model request closed at once, its tokens counted', async () => {
    const r = await run('text');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expectClosedByStop(r, 100);
    expect((await spansNamed(r, 'afterstop.cancel.request')).map((a) => a['afterstop.cancel.source'])).toEqual(['user']);
    const [model] = await spansNamed(r, 'chat');
    expect(model).toMatchObject({ 'afterstop.model.aborted': true });
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0 });
    agreesWithTruth(r);
  });

  it('Stop while the tool ignores the signal and its POST is in flight: the e-mail goes after Stop, a possible ghost commit (its round trip holds the Stop)', async () => {
    const r = await run('tool-ignores');
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1 });
    expect(r.report.totals.ghost_commits_by_tool.map((g) => [g.tool, g.ghost_commits, g.ghost_commits_possible])).toEqual([['send_email', 0, 1]]);
    expect(acrossStop(r)).toEqual(['send_email']);
    agreesWithTruth(r);
  });

  it('Stop while the tool honours the signal (its POST aborted after it reached the service): a possible ghost, the tool call cancelled by the signal, and the run acknowledged although Mastra reports no abort', async () => {
    const r = await run('tool-honours');
    expect(r.effects[0]!.clientClosedBeforeCommit).toBe(true);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1 });
    const [call] = await spansNamed(r, 'execute_tool');
    // 1.71's tool wrapper throws, the abort as its cause; 1.0.4's hands the error back as the tool's value.
    if (version === '1.71.0') expect(call).toMatchObject({ 'afterstop.tool.signal_observed': true, 'error.type': 'cancelled' });
    // 1.71 emits nothing for the call (its result dropped: an orphan); 1.0.4 emits the error as its result.
    expect(r.out['toolParts']).toEqual(version === '1.0.4' ? ['tool-result'] : undefined);
    expect(call?.['afterstop.tool.result']).toBe(version === '1.0.4' ? 'delivered' : 'dropped');
    expect(r.report.totals.orphan_tool_calls).toBe(version === '1.0.4' ? 0 : 1);
    agreesWithTruth(r);
  });

  it('Stop while the tool honours the signal, then the next turn over the same memory thread: the call is an orphan exactly when the next model request carries no result for it', async () => {
    const r = await run('tool-honours-next');
    expect(r.requests).toHaveLength(2);
    const callId = r.requests[0]!.toolCalls[0]!.id;
    // Ground truth: what Mastra's memory handed the model in the next turn.
    const kept = r.requests[1]!.toolResultIds!.includes(callId);
    expect(kept, 'the next turn carries the result').toBe(version === '1.0.4');
    expect((await toolResults(r))[callId]).toBe(kept ? 'delivered' : 'dropped');
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, orphan_tool_calls: kept ? 0 : 1, unacknowledged_cancels: 0 });
    expect(r.out['nextTurnError']).toBeUndefined();
    expect(r.report.totals.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 0, other: 0 });
    // The e-mail reached the service before the tool's abort: a possible ghost, never a known one.
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(r.report.totals).toMatchObject({ ghost_commits: 0, ghost_commits_possible: 1 });
  });

  it('generate() stopped while its tool’s POST is in flight: a possible ghost (its round trip holds the Stop), acknowledged when generate settles', async () => {
    const r = await run('generate-tool');
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1 });
    expect(acrossStop(r)).toEqual(['send_email']);
    agreesWithTruth(r);
  });
});

describe('Mastra, more', () => {
  it('switched off (AFTERSTOP_DISABLED_INSTRUMENTATIONS=mastra): no run, the app runs as before', async () => {
    const r = await runApp(app('mastra-app.mjs'), 'complete', { AFTERSTOP_DISABLED_INSTRUMENTATIONS: 'mastra' });
    expect(r.out).toMatchObject({ plain: 7 });
    expect(r.report?.totals.runs ?? 0).toBe(0);
  });
});
