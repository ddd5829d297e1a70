import { describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { expectClosedByStop, expectTokensAfterStop, sdkApps, spansNamed, truthAfterStop } from '../../../test/helpers/sdk-app.js';

/** The real `@anthropic-ai/sdk` client under `node --import afterstop/register`, leak-report checked against the simulator's ledger. */
const { app, runApp } = sdkApps();

describe('@anthropic-ai/sdk Messages under afterstop/register', () => {
  it('a stream read to its end and a plain call: one run each, not cancelled, the app’s results unchanged', async () => {
    const r = await runApp(app('anthropic-app.mjs'), 'complete');
    expect(r.out).toMatchObject({ chunks: 20, plainTokens: 7 });
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0 });
    expect(r.report.groups.map((g) => g.framework)).toEqual(['anthropic-sdk']);
  });

  it('Stop through the request’s signal: cancel request and ack, the call aborted; tokens after Stop as the server sent them', async () => {
    const r = await runApp(app('anthropic-app.mjs'), 'signal');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expect(t.tokens_after_stop.observed_calls).toBe(1);
    expectTokensAfterStop(t.tokens_after_stop.output, truthAfterStop(r));
  });

  it.each([
    ['break', 'breaking out of the stream'],
    ['helper-abort', 'the stream helper’s abort() (client.messages.stream())'],
  ])('Stop by %s (%s): the request closed at once, a Stop by the user, acknowledged; tokens after Stop as the server sent them', async (scenario) => {
    const r = await runApp(app('anthropic-app.mjs'), scenario);
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expectClosedByStop(r, 200);
    expect((await spansNamed(r, 'afterstop.cancel.request')).map((a) => a['afterstop.cancel.source'])).toEqual(['user']);
    const t = r.report.totals;
    // The helper starts the SDK's own span (1.x traces itself) before it calls create(): the model call starts in the
    // helper, so that span is its child, in the run's trace, counted once.
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expect(r.report.groups.map((g) => [g.framework, g.runs])).toEqual([['anthropic-sdk', 1]]);
    const spans = (await readTraces(r.traces)).spans;
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const ours = spans.find((s) => s.name === 'chat claude-sonnet-4-5')!;
    expect(spans.filter((s) => s.name.startsWith('anthropic.')).map((s) => s.parentSpanId)).toEqual([ours.spanId]);
    expectTokensAfterStop(t.tokens_after_stop.output, truthAfterStop(r));
  });

  it('a manual run whose Stop never reaches the SDK: every token after Stop is counted', async () => {
    const r = await runApp(app('anthropic-app.mjs'), 'run-cancel');
    const truth = truthAfterStop(r);
    expect(truth.outputTokensSent).toBeGreaterThan(20);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 1 });
    expectTokensAfterStop(r.report.totals.tokens_after_stop.output, truth);
  });
});
