import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sdkApps, spansNamed, type AppRun } from '../../../test/helpers/sdk-app.js';

/**
 * The guard does no harm, through the AI SDK's own tool runner (`generateText` with tools), as a user runs
 * it (`node --import afterstop/register`, the guard from the environment), against the simulator's ledger.
 */
const { runApp } = sdkApps();
const app = path.join(fileURLToPath(new URL('../../../test/fixtures/guard/', import.meta.url)), 'ai-sdk-no-harm-app.mjs');
const FENCE = { AFTERSTOP_GUARD_FENCE: 'true' };
const named = (r: AppRun, name: string): AppRun['effects'] => r.effects.filter((e) => e.name === name);

describe('the AI SDK (generateText with tools) under the guard', () => {
  it('after Stop, the tool’s cancel call and its cleanup in afterStopCleanup reach the service; its new e-mail and its unmarked cleanup do not; each passage is recorded', async () => {
    const r = await runApp(app, 'cancel-cleanup', FENCE);
    expect(r.out).toMatchObject({ cancel: 200, late: 'AbortError', cleanup: 200, plainCleanup: 'AbortError' });
    expect(named(r, 'cancel').map((e) => e.outcome)).toEqual(['committed']);
    expect(named(r, 'session_close').map((e) => e.outcome)).toEqual(['committed']);
    expect([named(r, 'late_email'), named(r, 'session_close_plain')]).toEqual([[], []]);
    const passed = await spansNamed(r, 'afterstop.tool.fence.passed');
    expect(passed.map((a) => [a['afterstop.guard.fence.passed'], a['http.request.method'], a['gen_ai.tool.name']])).toEqual([
      ['cancel', 'POST', 'export_report'],
      ['cleanup', 'POST', 'export_report'],
    ]);
    expect(r.report.totals.commits_prevented).toBe(2);
    // The Stop propagating and the cleanup are no leak: the report counts neither as a ghost side effect.
    expect([r.report.totals.ghost_commits, r.report.totals.ghost_commits_possible]).toEqual([0, 0]);
    // The commits their requests made say why they passed.
    const commits = await spansNamed(r, 'afterstop.tool.commit');
    expect(
      commits
        .map((a) => a['afterstop.guard.fence.passed'])
        .filter((p) => p !== undefined)
        .sort(),
    ).toEqual(['cancel', 'cleanup']);
  });

  it('a request fired and forgotten after Stop (a dropped fetch promise, a node:http request without an error listener) is refused, and the process lives on', async () => {
    const r = await runApp(app, 'fire-and-forget', FENCE);
    expect(r.code, r.stderr).toBe(0);
    expect(r.out['alive']).toBe(true);
    expect([named(r, 'forgotten_fetch'), named(r, 'forgotten_http')]).toEqual([[], []]);
    expect(r.report.totals.commits_prevented).toBe(2);
  });

  it('tool call ids "0" in every answer: two turns of one conversation and another user’s conversation of the same name get three keys; the service does all three charges', async () => {
    const r = await runApp(app, 'counter-ids', { COUNTER_IDS: '1', AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS: '127.0.0.1' });
    expect((r.out['results'] as { id: string }[]).map((x) => x.id)).toEqual(['0', '0', '0']);
    const charges = named(r, 'charge');
    expect(charges.map((e) => e.outcome)).toEqual(['committed', 'committed', 'committed']);
    expect(new Set(charges.map((e) => e.idempotencyKey)).size).toBe(3);
    expect(charges.every((e) => typeof e.idempotencyKey === 'string')).toBe(true);
  });
});
