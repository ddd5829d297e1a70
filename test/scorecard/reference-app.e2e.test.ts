import { describe, expect, it } from 'vitest';
import { agreesWithTruth, sdkApps } from '../helpers/sdk-app.js';

/** The reference agent (scorecard/apps/reference-app.mjs): what doing everything right measures as. */
const { app, runApp } = sdkApps();

describe('the reference agent', () => {
  it.each(['text', 'tool', 'before-tool'])('stopped (%s): cancel depth 4, acknowledged, no ghost, no orphan', async (scenario) => {
    const r = await runApp(app('reference-app.mjs'), scenario);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, orphan_tool_calls: 0 });
    expect(r.report.totals.cancel_depth['4']).toBe(1);
    expect(r.effects.filter((e) => e.outcome === 'committed')).toEqual([]);
    agreesWithTruth(r);
  });

  it('two tools side by side, Stop while the e-mail is in flight: the finished one keeps its result, the e-mail is abandoned, its call repaired', async () => {
    const r = await runApp(app('reference-app.mjs'), 'parallel');
    expect(r.out['history']).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(r.effects.map((e) => [e.name, e.outcome])).toEqual([
      ['log_event', 'committed'],
      ['send_email', 'abandoned'],
    ]);
    expect(r.report.totals).toMatchObject({ cancelled_runs: 1, ghost_commits: 0, orphan_tool_calls: 0 });
    expect(r.report.totals.cancel_depth['4']).toBe(1);
    agreesWithTruth(r);
  });

  it('Stop after the e-mail was committed, before its receipt: committed before Stop, so no ghost; the call is repaired without claiming it failed', async () => {
    const r = await runApp(app('reference-app.mjs'), 'after-commit');
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(r.report.totals).toMatchObject({ cancelled_runs: 1, ghost_commits: 0, orphan_tool_calls: 0 });
    agreesWithTruth(r);
  });

  it('a steering message while the tool runs goes in after the tool batch: injected between steps, no violation, nothing dropped', async () => {
    const r = await runApp(app('reference-app.mjs'), 'steer');
    expect(r.out).toMatchObject({ history: ['user', 'assistant', 'tool', 'user', 'assistant'], steerInsideToolBatch: false, steerInjected: true });
    expect(r.report.totals.steering).toMatchObject({ violations: 0, dropped: 0 });
    expect(r.report.totals.steering.inject_ms.count).toBe(1);
    expect(r.report.totals.cancelled_runs).toBe(0);
  });
});
