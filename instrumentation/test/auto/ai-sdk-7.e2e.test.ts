import { describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { agreesWithTruth, expectClosedByStop, sdkApps, spansNamed, toolResults, truthAfterStop } from '../../../test/helpers/sdk-app.js';
import { versionedApps, versionIn } from '../../../test/helpers/versioned-app.js';

/**
 * AI SDK 7 (`ai` 7 with `@ai-sdk/openai` 4), recorded through the SDK's own
 * telemetry hooks: the same user app as ai-sdk.test.ts (written for 6, as a
 * team upgrading keeps it), under `node --import afterstop/register`, stopped
 * at each moment the scorecard uses, at the newest 7 and at 7.0.0; and beside
 * `@ai-sdk/otel`, the app's own GenAI spans, without counting a call twice.
 */
const { runApp } = sdkApps();
const versioned = versionedApps();
const NEWEST = { ai: 'ai-7.0.173', '@ai-sdk/openai': 'ai-sdk-openai-4.0.118', '@ai-sdk/otel': 'ai-sdk-otel-1.0.173' };
const FIRST = { ai: 'ai-7.0.0', '@ai-sdk/openai': 'ai-sdk-openai-4.0.0' };
/** A possible ghost whose POST's round trip holds the Stop (possible_kind across_stop): sent before Stop, answered after it. */
const ACROSS_STOP = /^send_email \(effect unknown\) may have committed after Stop: its effect happened between [\d.]+ ms before Stop and [\d.]+ ms after Stop \(its request was sent before Stop and answered after it\)$/;
/** A possible ghost whose POST was cut after its body reached the service (possible_kind request_sent). */
const REQUEST_SENT = /^send_email \(effect unknown\) may have committed after Stop: its request reached the service [\d.]+ ms before Stop, and its answer was lost [\d.]+ ms after Stop$/;
const possibleGhosts = (r: { report: { findings: { kind: string; detail: string }[] } }): string[] => r.report.findings.filter((f) => f.kind === 'possible_ghost_commit').map((f) => f.detail);

describe.each([
  ['7.0.173', NEWEST],
  ['7.0.0', FIRST],
])('AI SDK %s through its telemetry hooks', (version, packages) => {
  const app = (): string => versioned('ai-sdk-app.mjs', packages);
  const run = (scenario: string, env: Record<string, string> = {}) => runApp(app(), scenario, env);

  it('runs the version it names', () => {
    expect(versionIn(app(), 'ai')).toBe(version);
  });

  it('a chat turn with a tool, read to its end, and a generateText call: two runs, nothing cancelled, the result delivered', async () => {
    const r = await run('complete');
    expect(r.out).toMatchObject({ toolPartStates: ['output-available'], plainText: 7 });
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0, ghost_commits: 0, orphan_tool_calls: 0, unended_runs: 0 });
    expect(r.report.groups.map((g) => g.framework)).toEqual(['vercel-ai']);
    expect(Object.values(await toolResults(r))).toEqual(['delivered']);
  });

  it('Stop (abortSignal) during the text stream: the cancel at the Stop, acknowledged, the request closed at once, the tokens after Stop counted', async () => {
    const r = await run('text');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expectClosedByStop(r, 100);
    const [cancel] = await spansNamed(r, 'afterstop.cancel.request');
    expect(cancel?.['afterstop.cancel.source']).toBe('user');
    const [model] = await spansNamed(r, 'chat');
    expect(model).toMatchObject({ 'afterstop.model.aborted': true, 'afterstop.model.output_tokens_after_cancel': expect.any(Number) });
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0 });
    // Acknowledged by the abort itself: after the Stop, and by the time the app saw its stream end (an
    // acknowledgement taken later, at the run's end or from a stream read out, would come after it).
    const ack = (await readTraces(r.traces)).spans.find((s) => s.name === 'afterstop.cancel.ack');
    expect(ack!.startNs >= BigInt(String(r.out['stopNs'])) && ack!.startNs <= BigInt(String(r.out['streamEndedNs'])), 'Stop ≤ acknowledgement ≤ the app saw its stream end').toBe(true);
    agreesWithTruth(r);
  });

  for (const scenario of ['tool-honours', 'tool-ignores']) {
    // Honoured, the POST is cut after its body reached the service (its answer lost); ignored, it is answered after
    // Stop, but sent before: its round trip holds the Stop. A possible ghost either way.
    it(`Stop while the tool's POST is in flight (${scenario}): a possible ghost (${scenario === 'tool-honours' ? 'its answer lost' : 'its round trip holds the Stop'}), the orphan, and the next turn's AI_MissingToolResultsError`, async () => {
      const r = await run(scenario);
      expect(r.effects).toHaveLength(1);
      expect(r.out).toMatchObject({ toolPartStates: ['input-available'], nextTurnError: 'AI_MissingToolResultsError' });
      const honours = scenario === 'tool-honours';
      expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
      expect(possibleGhosts(r)).toEqual([expect.stringMatching(honours ? REQUEST_SENT : ACROSS_STOP)]);
      expect(r.report.totals.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 1, other: 0 });
      expect(Object.values(await toolResults(r))).toEqual([honours ? 'cancelled' : 'dropped']);
      agreesWithTruth(r);
    });
  }

  it('Stop before the tool starts: the tool never runs', async () => {
    const r = await run('before-tool');
    expect(r.effects).toEqual([]);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, orphan_tool_calls: 0 });
    agreesWithTruth(r);
  });

  it('two tools in one step, Stop when one has finished and the other is in flight: the first delivered, the second cancelled and a possible ghost', async () => {
    const r = await run('parallel');
    expect(r.report.totals).toMatchObject({ cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    const results = await toolResults(r);
    const ids = Object.fromEntries(r.requests[0]!.toolCalls.map((c) => [c.name, c.id]));
    expect([results[ids['log_event']!], results[ids['send_email']!]]).toEqual(['delivered', 'cancelled']);
    agreesWithTruth(r);
  });

  it('Stop after the service committed, before its answer: a possible ghost, not a known one', async () => {
    const r = await run('after-commit');
    expect(truthAfterStop(r).ghostCommits).toBe(0);
    expect(r.report.totals).toMatchObject({ ghost_commits: 0, ghost_commits_possible: 1 });
    agreesWithTruth(r);
  });

  it('generateText stopped while the model generates, and while the tool’s POST is in flight: the promise rejects, acknowledged; the tool call orphaned', async () => {
    const text = await run('generate-text');
    expect(text.out['error']).toBe('AbortError');
    expect(text.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    agreesWithTruth(text);
    const tool = await run('generate-tool');
    expect(tool.out['error']).toBe('AbortError');
    expect(tool.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    agreesWithTruth(tool);
  });

  for (const scenario of ['agent-generate', 'agent-stream']) {
    it(`ToolLoopAgent ${scenario.slice(6)}(), Stop while its tool's POST is in flight: one cancelled run named by the agent's id, a possible ghost (its round trip holds the Stop), the orphan`, async () => {
      const r = await run(scenario);
      expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
      expect(possibleGhosts(r)).toEqual([expect.stringMatching(ACROSS_STOP)]);
      expect(r.report.groups.map((g) => [g.framework, g.agent])).toEqual([['vercel-ai', 'support-agent']]);
      agreesWithTruth(r);
    });
  }
});

describe('AI SDK 7 beside @ai-sdk/otel', () => {
  const app = (): string => versioned('ai-sdk-app.mjs', NEWEST);

  it('the app’s GenAI spans nest in afterstop’s run; every figure is as without them, each call counted once', async () => {
    const r = await runApp(app(), 'tool-ignores', { AI_OTEL: '1' });
    const spans = (await readTraces(r.traces)).spans;
    const theirs = spans.filter((s) => s.attributes['afterstop.run.id'] === undefined && !s.name.startsWith('afterstop.'));
    expect(theirs.map((s) => s.name.split(' ')[0]).sort()).toEqual(expect.arrayContaining(['chat', 'execute_tool', 'invoke_agent']));
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1, unended_runs: 0 });
    expect(possibleGhosts(r)).toEqual([expect.stringMatching(ACROSS_STOP)]);
    expect(r.report.totals.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 1, other: 0 });
    agreesWithTruth(r);
    const text = await runApp(app(), 'text', { AI_OTEL: '1' });
    expect(text.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expect(text.report.totals.tokens_after_stop.observed_calls + text.report.totals.tokens_after_stop.estimated_calls).toBe(1);
    agreesWithTruth(text);
  });
});
