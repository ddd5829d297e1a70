import { describe, expect, it } from 'vitest';
import { expectClosedByStop, expectTokensAfterStop, sdkApps, spansNamed, truthAfterStop } from '../../../test/helpers/sdk-app.js';

/** The real `openai` client under `node --import afterstop/register`, leak-report checked against the simulator's ledger. */
const { app, runApp } = sdkApps();

describe('openai Chat Completions under afterstop/register', () => {
  it('a stream read to its end and a plain call: one run each, not cancelled, the app’s results unchanged', async () => {
    const r = await runApp(app('openai-app.mjs'), 'complete');
    expect(r.out).toMatchObject({ chunks: 20, plainTokens: 7 });
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0, orphan_tool_calls: 0 });
    expect(r.report.groups.map((g) => g.framework)).toEqual(['openai-sdk']);
  });

  it('Stop through the request’s signal: cancel request and ack, the model call aborted; tokens after Stop as the server sent them', async () => {
    const r = await runApp(app('openai-app.mjs'), 'signal');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expect(t.cancel_ack_ms.count).toBe(1);
    expect(t.tokens_after_stop.observed_calls).toBe(1);
    expectTokensAfterStop(t.tokens_after_stop.output, truthAfterStop(r));
  });

  it('Stop by breaking out of the stream: the SDK closes the request; recorded as a Stop by the user', async () => {
    const r = await runApp(app('openai-app.mjs'), 'break');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expect((await spansNamed(r, 'afterstop.cancel.request')).map((a) => a['afterstop.cancel.source'])).toEqual(['user']);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
  });

  it.each(['run-cancel', 'responses-run-cancel'])('a manual run whose Stop never reaches the SDK (%s): the call belongs to the run, and every token after Stop is counted', async (scenario) => {
    const r = await runApp(app('openai-app.mjs'), scenario);
    expect(r.requests[0]!.clientClosedEarly).toBe(false);
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 1 });
    expect(r.report.groups.map((g) => [g.agent, g.framework])).toEqual([['essayist', 'manual']]);
    const truth = truthAfterStop(r);
    expect(truth.outputTokensSent).toBeGreaterThan(20);
    expectTokensAfterStop(t.tokens_after_stop.output, truth);
  });

  it('the Responses API: a stream and a plain call, one run each, usage from the provider', async () => {
    const r = await runApp(app('openai-app.mjs'), 'responses-complete');
    expect(r.out).toMatchObject({ chunks: 20, plainTokens: 7 });
    expect(r.requests.map((q) => q.api)).toEqual(['openai-responses', 'openai-responses']);
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0 });
  });

  it('the Responses API stopped through the signal: cancel request and ack; tokens after Stop as the server sent them', async () => {
    const r = await runApp(app('openai-app.mjs'), 'responses-signal');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expectTokensAfterStop(t.tokens_after_stop.output, truthAfterStop(r));
  });

  it('the Responses stream helper (client.responses.stream()) stopped by its abort(): the request closed at once, a Stop by the user, acknowledged', async () => {
    const r = await runApp(app('openai-app.mjs'), 'responses-helper-abort');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expectClosedByStop(r, 200);
    expect((await spansNamed(r, 'afterstop.cancel.request')).map((a) => a['afterstop.cancel.source'])).toEqual(['user']);
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expectTokensAfterStop(t.tokens_after_stop.output, truthAfterStop(r));
  });

  it('CommonJS apps too', async () => {
    const r = await runApp(app('openai-app.cjs'), 'signal');
    expect(r.out['chunks']).toBeGreaterThan(0);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1 });
  });

  it('switched off by AFTERSTOP_INSTRUMENTATIONS=none (and by AFTERSTOP_DISABLED_INSTRUMENTATIONS): no spans, the app runs', async () => {
    const envs: Record<string, string>[] = [{ AFTERSTOP_INSTRUMENTATIONS: 'none' }, { AFTERSTOP_DISABLED_INSTRUMENTATIONS: 'openai' }, { AFTERSTOP_INSTRUMENTATIONS: 'anthropic' }];
    for (const env of envs) {
      const r = await runApp(app('openai-app.mjs'), 'complete', env);
      expect(r.out).toMatchObject({ chunks: 20, plainTokens: 7 });
      expect(r.report?.totals.runs ?? 0).toBe(0);
    }
  });

  it('an unknown instrumentation name (a typo): one line on stderr naming it and the known ones, and the known ones still run', async () => {
    const r = await runApp(app('openai-app.mjs'), 'complete', { AFTERSTOP_INSTRUMENTATIONS: 'openai,nonsense' });
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^afterstop: unknown instrumentation\(s\) nonsense in AFTERSTOP_INSTRUMENTATIONS .* left out \(known: http-commits, openai, /)]);
    expect(r.out).toMatchObject({ chunks: 20, plainTokens: 7 });
    expect(r.report.totals.runs).toBeGreaterThan(0);
  });
});
