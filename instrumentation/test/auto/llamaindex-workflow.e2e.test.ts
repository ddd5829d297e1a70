import { describe, expect, it } from 'vitest';
import { agreesWithTruth, sdkApps, toolResults } from '../../../test/helpers/sdk-app.js';

/**
 * The real `@llamaindex/workflow-core` under `node --import afterstop/register`:
 * plan → charge (a payment) → notify (a receipt). A workflow has no cancel;
 * leaving its event stream is the only Stop an app has.
 */
const { app, runApp } = sdkApps();
const run = (scenario: string) => runApp(app('llamaindex-app.mjs'), scenario);

describe('LlamaIndex Workflows under afterstop/register', () => {
  it('a workflow read to its stop event: one run, each step a call, nothing cancelled', async () => {
    const r = await run('complete');
    expect(r.out['events']).toBe(4);
    expect(r.effects.map((e) => e.name)).toEqual(['charge', 'notify']);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 0, unended_runs: 0 });
    expect(r.report.groups.map((g) => g.framework)).toEqual(['llamaindex-workflows']);
    expect(Object.values(await toolResults(r))).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('leaving the stream at the stop event, when every step is done, is no Stop', async () => {
    const r = await run('break-at-stop');
    expect(r.out['events']).toBe(4);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 0, ghost_commits: 0, unended_runs: 0 });
  });

  it('leaving the event stream while a step runs: a Stop; the later step still runs and commits (a ghost, known or possible)', async () => {
    const r = await run('leave');
    // The app leaves on the event that starts the receipt step: that step's request is made in the same turn, just
    // before or just after the Stop. Made before it, its effect's interval holds the Stop (a possible ghost, METRICS.md
    // §2); made after, it is a known one. Either way exactly one ghost, the receipt's, and the ledger agrees.
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expect(t.ghost_commits + t.ghost_commits_possible).toBe(1);
    expect(r.report.findings.filter((f) => f.kind === 'ghost_commit' || f.kind === 'possible_ghost_commit').map((f) => f.tool)).toEqual(['notify']);
    agreesWithTruth(r);
  });

  it('cancelling the reader while the payment is in flight: both commit after Stop; the receipt, sent after it, a ghost, the payment a possible one (its round trip holds the Stop)', async () => {
    const r = await run('cancel-reader');
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 1, ghost_commits_possible: 1 });
    expect(r.report.findings.filter((f) => f.kind === 'ghost_commit').map((f) => f.tool)).toEqual(['notify']);
    expect(r.report.findings.filter((f) => f.kind === 'possible_ghost_commit').map((f) => f.detail)).toEqual([
      expect.stringMatching(
        /^charge \(effect unknown\) may have committed after Stop: its effect happened between [\d.]+ ms before Stop and [\d.]+ ms after Stop \(its request was sent before Stop and answered after it\)$/,
      ),
    ]);
    agreesWithTruth(r);
  });

  it('leaving before the payment step starts: the later steps start anyway, both commit after Stop', async () => {
    const r = await run('before-step');
    expect(r.effects.map((e) => e.name)).toEqual(['charge', 'notify']);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 2 });
    agreesWithTruth(r);
  });

  it('leaving while a step streams from the model: nothing stops the call; every token after Stop is counted', async () => {
    const r = await run('model');
    expect(r.requests[0]!.clientClosedEarly).toBe(false);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0 });
    expect(r.report.totals.tokens_after_stop.output).toBeGreaterThan(20);
    agreesWithTruth(r);
  });

  it('leaving while a step prepares: the next step starts anyway and asks the model after the Stop: a new model call, all its tokens billed after Stop', async () => {
    const r = await run('model-after-stop');
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.startNs).toBeGreaterThan(BigInt(String(r.out['stopNs'])));
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0 });
    expect(r.report.totals.tokens_after_stop.calls_started_after_stop).toBe(1);
    expect(r.report.totals.tokens_after_stop.output).toBe(60);
    agreesWithTruth(r);
  });
});
