import { describe, expect, it } from 'vitest';
import { ANTHROPIC_VERSIONS } from '../../auto/anthropic.js';
import { AI_SDK_VERSIONS } from '../../auto/ai-sdk.js';
import { OPENAI_VERSIONS } from '../../auto/openai.js';
import { agreesWithTruth, expectTokensAfterStop, sdkApps, truthAfterStop, type AppRun } from '../../../test/helpers/sdk-app.js';
import { versionedApps, versionIn } from '../../../test/helpers/versioned-app.js';

/**
 * The lower bounds of the supported version ranges (docs/instrumentations.md: supported
 * versions), run like the newest: the newest are what the other tests in
 * this folder install.
 */
const { runApp } = sdkApps();
const versioned = versionedApps();

/** The tools of the possible ghosts whose request was sent before Stop and answered after it: the round trip holds the Stop. */
const acrossStop = (r: AppRun): (string | null)[] =>
  r.report.findings.filter((f) => f.kind === 'possible_ghost_commit' && f.detail.includes('(its request was sent before Stop and answered after it)')).map((f) => f.tool);

describe('the oldest supported versions', () => {
  it(`openai ${OPENAI_VERSIONS.join(' ')}: 4.13.0, a stream read to its end, and one whose run is stopped while it streams`, async () => {
    const app = versioned('openai-app.mjs', { openai: 'openai-4.13.0' });
    expect(versionIn(app, 'openai')).toBe('4.13.0');
    const done = await runApp(app, 'complete');
    expect(done.out).toMatchObject({ chunks: 20, plainTokens: 7 });
    expect(done.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0 });
    const stopped = await runApp(app, 'run-cancel');
    const truth = truthAfterStop(stopped);
    expect(truth.outputTokensSent).toBeGreaterThan(20);
    expect(stopped.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1 });
    expectTokensAfterStop(stopped.report.totals.tokens_after_stop.output, truth);
  });

  it(`@anthropic-ai/sdk ${ANTHROPIC_VERSIONS.join(' ')}: 0.20.0, a stream read to its end, and one stopped through its signal`, async () => {
    const app = versioned('anthropic-app.mjs', { '@anthropic-ai/sdk': 'anthropic-sdk-0.20.0' });
    expect(versionIn(app, '@anthropic-ai/sdk')).toBe('0.20.0');
    const done = await runApp(app, 'complete');
    expect(done.report.totals).toMatchObject({ cancelled_runs: 0 });
    expect(done.report.totals.runs).toBeGreaterThan(0);
    const stopped = await runApp(app, 'signal');
    expect(stopped.requests[0]!.clientClosedEarly).toBe(true);
    expect(stopped.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
  });

  it(`ai ${AI_SDK_VERSIONS.join(' ')}: 5.0.0 with @ai-sdk/openai 2.0.0, a chat turn, a Stop during the stream, and a possible ghost commit (its round trip holds the Stop) whose result 5.0.0 still delivers`, async () => {
    const app = versioned('ai-sdk-app.mjs', { ai: 'ai-5.0.0', '@ai-sdk/openai': 'ai-sdk-openai-2.0.0' });
    expect(versionIn(app, 'ai')).toBe('5.0.0');
    const done = await runApp(app, 'complete');
    expect(done.out).toMatchObject({ toolPartStates: ['output-available'], plainText: 7 });
    expect(done.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0 });
    expect(done.report.groups.map((g) => g.framework)).toEqual(['vercel-ai']);
    const text = await runApp(app, 'text');
    expect(text.requests[0]!.clientClosedEarly).toBe(true);
    expect(text.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0 });
    // Unlike ai 6, ai 5.0.0 still hands a tool result that comes back after the abort to the UI
    // stream: the history is whole, no orphan, and the next turn goes through.
    // 5.0's agent class, Experimental_Agent (no prepareCall: its call's options are handed over whole).
    for (const scenario of ['agent-generate', 'agent-stream']) {
      const agent = await runApp(app, scenario);
      expect(agent.report.totals, scenario).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1 });
      expect(acrossStop(agent), scenario).toEqual(['send_email']);
      expect(
        agent.report.groups.map((g) => [g.framework, g.agent]),
        scenario,
      ).toEqual([['vercel-ai', 'support-agent']]);
      agreesWithTruth(agent);
    }
    const ghost = await runApp(app, 'tool-ignores');
    expect(ghost.out).toMatchObject({ toolPartStates: ['output-available'] });
    expect(ghost.out['nextTurnError']).toBeUndefined();
    expect(truthAfterStop(ghost).ghostCommits).toBe(1);
    expect(ghost.report.totals).toMatchObject({ cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 0 });
    expect(acrossStop(ghost)).toEqual(['send_email']);
    expect(ghost.report.totals.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 0, other: 0 });
    // (ai 5.0.0 never settles `result.steps` once the app has cancelled its reader, with or without
    // afterstop: the reader-cancel scenario hangs there, so it is tested on ai 6 only.)
  });
});
