import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { distModule } from '../../../test/helpers/child.js';
import { agreesWithTruth, expectClosedByStop, sdkApps, spansNamed, toolResults, truthAfterStop } from '../../../test/helpers/sdk-app.js';

/**
 * The real `ai` package with `@ai-sdk/openai` (Chat Completions and Responses) and `@ai-sdk/anthropic`, under
 * `node --import afterstop/register`, stopped at each moment; leak-report over
 * the traces it wrote, checked against what the simulator saw happen.
 */
const { app, runApp, runKilledApp } = sdkApps();
const CLI = fileURLToPath(distModule('analyzer/cli/main.js'));
/** A possible ghost whose POST's round trip holds the Stop (possible_kind across_stop): sent before Stop, answered after it. */
const ACROSS_STOP = /^send_email \(effect unknown\) may have committed after Stop: its effect happened between [\d.]+ ms before Stop and [\d.]+ ms after Stop \(its request was sent before Stop and answered after it\)$/;
/** A possible ghost whose POST was cut after its body reached the service (possible_kind request_sent). */
const REQUEST_SENT = /^send_email \(effect unknown\) may have committed after Stop: its request reached the service [\d.]+ ms before Stop, and its answer was lost [\d.]+ ms after Stop$/;
const possibleGhosts = (r: { report: { findings: { kind: string; detail: string }[] } }): string[] => r.report.findings.filter((f) => f.kind === 'possible_ghost_commit').map((f) => f.detail);

describe.each(['openai', 'openai-responses', 'anthropic'])('Vercel AI SDK (%s provider) under afterstop/register', (provider) => {
  const run = (scenario: string, env: Record<string, string> = {}) => runApp(app('ai-sdk-app.mjs'), scenario, { PROVIDER: provider, ...env });

  it('a chat turn with a tool, read to its end, and a generateText call: two runs, nothing cancelled, the app’s results unchanged', async () => {
    const r = await run('complete');
    expect(r.out).toMatchObject({ toolPartStates: ['output-available'], plainText: 7 });
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0, ghost_commits: 0, orphan_tool_calls: 0 });
    expect(r.report.groups.map((g) => g.framework)).toEqual(['vercel-ai']);
    expect(Object.values(await toolResults(r))).toEqual(['delivered']);
    expect(r.report.totals.unended_runs).toBe(0);
  });

  it('Stop (abortSignal) during the text stream: request and ack, the request closed at once, no ghost', async () => {
    const r = await run('text');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expectClosedByStop(r, 100);
    expect((await spansNamed(r, 'afterstop.cancel.request')).map((a) => a['afterstop.cancel.source'])).toEqual(['user']);
    const [model] = await spansNamed(r, 'chat');
    expect(model).toMatchObject({ 'afterstop.model.aborted': true, 'afterstop.model.usage_source': 'estimated', 'afterstop.model.output_tokens_after_cancel': expect.any(Number) });
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, orphan_tool_calls: 0 });
    expect(t.tokens_after_stop.observed_calls).toBe(1);
    expect(t.cancel_depth['4']).toBe(1);
    agreesWithTruth(r);
  });

  for (const scenario of ['tool-honours', 'tool-ignores']) {
    // A tool that honours the signal aborts its POST after the body reached the service: the answer is lost, so the
    // commit is possible (its outcome unseen); one that ignores it gets the answer after Stop, but its POST went out
    // before: the effect happened somewhere in that round trip, which holds the Stop, so it is possible too.
    it(`Stop while the tool's POST is in flight (${scenario}): a possible ghost commit (${scenario === 'tool-honours' ? 'its answer lost' : 'its round trip holds the Stop'}), the result never reaches the history, and the next turn fails with AI_MissingToolResultsError`, async () => {
      const r = await run(scenario);
      expect(r.effects).toHaveLength(1);
      expect(r.effects[0]!.clientClosedBeforeCommit).toBe(scenario === 'tool-honours');
      expect(r.out).toMatchObject({ toolPartStates: ['input-available'], nextTurnError: 'AI_MissingToolResultsError' });
      const t = r.report.totals;
      const honours = scenario === 'tool-honours';
      expect(t).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
      expect(possibleGhosts(r)).toEqual([expect.stringMatching(honours ? REQUEST_SENT : ACROSS_STOP)]);
      expect(t.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 1, other: 0 });
      const orphan = r.report.findings.find((f) => f.kind === 'orphan_tool_call');
      expect(orphan?.detail).toMatch(scenario === 'tool-honours' ? /result cancelled/ : /result dropped/);
      expect(Object.values(await toolResults(r))).toEqual([scenario === 'tool-honours' ? 'cancelled' : 'dropped']);
      agreesWithTruth(r);
    });
  }

  for (const scenario of ['agent-generate', 'agent-stream']) {
    it(`the SDK's agent class (ToolLoopAgent), ${scenario.slice(6)}(), Stop while its tool's POST is in flight: one cancelled run named by the agent's id, a possible ghost (its round trip holds the Stop), the orphan`, async () => {
      const r = await run(scenario);
      expect(r.effects).toHaveLength(1);
      expect(r.effects[0]!.clientClosedBeforeCommit).toBe(false);
      const t = r.report.totals;
      expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
      expect(possibleGhosts(r)).toEqual([expect.stringMatching(ACROSS_STOP)]);
      expect(r.report.groups.map((g) => [g.framework, g.agent])).toEqual([['vercel-ai', 'support-agent']]);
      expect(Object.values(await toolResults(r))).toEqual(['dropped']);
      agreesWithTruth(r);
    });
  }

  it('Stop before the tool starts: the tool never runs, nothing to count but the aborted stream', async () => {
    const r = await run('before-tool');
    expect(r.effects).toEqual([]);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, orphan_tool_calls: 0 });
    agreesWithTruth(r);
  });

  it('Stop by cancelling the stream reader, no abortSignal: the request stays open; reading the steps later resumes the loop: a ghost commit and a new model call after Stop', async () => {
    const r = await run('reader-cancel');
    expect(r.out['steps']).toBe(2);
    expect((await spansNamed(r, 'afterstop.cancel.request')).map((a) => a['afterstop.cancel.source'])).toEqual(['user']);
    expect(r.requests[0]!.clientClosedEarly).toBe(false);
    const truth = truthAfterStop(r);
    expect(truth).toMatchObject({ ghostCommits: 1, modelCallsStarted: 1 });
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, orphan_tool_calls: 0 });
    // Acknowledged only when the loop ended, after the model call it resumed with: not at the reader's cancel.
    const spans = (await readTraces(r.traces)).spans;
    const ack = spans.find((s) => s.name === 'afterstop.cancel.ack');
    const modelCalls = spans.filter((s) => s.name.startsWith('chat')).sort((a, b) => (a.startNs < b.startNs ? -1 : 1));
    expect(modelCalls).toHaveLength(2);
    expect(ack!.startNs > modelCalls[1]!.startNs, 'the acknowledgement after the resumed model call started').toBe(true);
    // The loop went on with the result: delivered (to the SDK's own history), not dropped.
    expect(Object.values(await toolResults(r))).toEqual(['delivered']);
    agreesWithTruth(r);
  });
});

describe('Vercel AI SDK, more', () => {
  it('generateText stopped while the tool’s POST is in flight: the promise rejects (acknowledged), a possible ghost commit (the POST aborted after it reached the service), the call orphaned', async () => {
    const r = await runApp(app('ai-sdk-app.mjs'), 'generate-tool');
    expect(r.out['error']).toBe('AbortError');
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    agreesWithTruth(r);
  });

  it('with the SDK’s own telemetry on: its spans nest in afterstop’s run, and the step it never ends at abort is still counted, once', async () => {
    const r = await runApp(app('ai-sdk-app.mjs'), 'tool-ignores', { AI_TELEMETRY: '1' });
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1, unended_runs: 0 });
    expect(possibleGhosts(r)).toEqual([expect.stringMatching(ACROSS_STOP)]);
    expect(t.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 1, other: 0 });
    agreesWithTruth(r);
    const spans = (await readTraces(r.traces)).spans;
    const run = spans.find((s) => s.name === 'invoke_agent' && spans.some((c) => c.parentSpanId === s.spanId && c.name === 'ai.streamText'));
    expect(run, 'the SDK’s ai.streamText span is a child of afterstop’s run span').toBeDefined();
    const text = await runApp(app('ai-sdk-app.mjs'), 'text', { AI_TELEMETRY: '1' });
    expect(text.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expect(text.report.totals.tokens_after_stop.observed_calls).toBe(1);
    agreesWithTruth(text);
  });

  it('two tools in one step, Stop when one has finished and the other is in flight: the first delivered and no ghost, the second a possible ghost (its POST aborted) and an orphan', async () => {
    const r = await runApp(app('ai-sdk-app.mjs'), 'parallel');
    expect(r.out['toolPartStates']).toEqual(['log_event:output-available', 'send_email:input-available']);
    expect(r.report.totals).toMatchObject({ cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    const results = await toolResults(r);
    const ids = Object.fromEntries(r.requests[0]!.toolCalls.map((c) => [c.name, c.id]));
    expect([results[ids['log_event']!], results[ids['send_email']!]]).toEqual(['delivered', 'cancelled']);
    agreesWithTruth(r);
  });

  it('Stop after the service committed but before its answer came back: a possible ghost commit saying when the request reached the service, not a known one', async () => {
    const r = await runApp(app('ai-sdk-app.mjs'), 'after-commit');
    expect(truthAfterStop(r).ghostCommits).toBe(0);
    expect(r.effects.map((e) => e.outcome)).toEqual(['committed']);
    expect(r.report.totals).toMatchObject({ ghost_commits: 0, ghost_commits_possible: 1 });
    const commit = (await readTraces(r.traces)).spans.find((s) => s.name === 'afterstop.tool.commit');
    expect(commit?.attributes['afterstop.tool.commit.evidence']).toBe('request_sent');
    const finding = r.report.findings.find((f) => f.kind === 'possible_ghost_commit');
    expect(finding?.detail).toMatch(/^send_email \((?:effect unknown|irreversible)\) may have committed after Stop: its request reached the service [\d.]+ ms before Stop, and its answer was lost [\d.]+ ms after Stop$/);
    // When the request reached the service, as the ledger orders it: after the tool started, before the
    // service committed (50 ms after it received the body); so, before the Stop (C, the cancel marker), by
    // more than C − commit and at most C − tool start (+ the detail's rounding to µs). Measured from the
    // commit, the Stop or the lost answer instead, it falls outside.
    const sentBeforeStopMs = Number(/reached the service ([\d.]+) ms before Stop/.exec(finding!.detail)![1]);
    const spans = (await readTraces(r.traces)).spans;
    const c = spans.find((s) => s.name === 'afterstop.cancel.request')!.startNs;
    const tool = spans.find((s) => s.name === 'execute_tool send_email')!;
    expect(sentBeforeStopMs).toBeGreaterThan(Number(c - r.effects[0]!.committedNs!) / 1e6);
    expect(sentBeforeStopMs).toBeLessThanOrEqual(Number(c - tool.startNs) / 1e6 + 0.001);
    agreesWithTruth(r);
  });

  it('a tool that ignores the signal, in flight at Stop, in a process killed right after: the e-mail goes, afterstop says it possibly did, and --max-ghost-commits 0 fails the job', async () => {
    const r = await runKilledApp(app('ai-sdk-app.mjs'), 'killed-after-stop');
    expect(r.code, r.stderr).toBeNull();
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    expect(r.report.totals).toMatchObject({ cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1 });
    expect(r.report.findings.find((f) => f.kind === 'possible_ghost_commit')?.detail).toMatch(/^send_email \(effect unknown\) may have committed after Stop: it started [\d.]+ ms before Stop and never ended/);
    const job = (...flags: string[]) => spawnSync(process.execPath, [CLI, 'leak-report', r.traces, '--db', ':memory:', '--format', 'json', '--max-ghost-commits', '0', ...flags], { encoding: 'utf8' });
    const strict = job();
    expect(strict.status).toBe(1);
    expect(strict.stderr).toMatch(/--max-ghost-commits/);
    expect(job('--ghost-budget-excludes-possible').status).toBe(0);
  });

  it('a CommonJS app (read-only exports: patched through a copy)', async () => {
    const r = await runApp(app('ai-sdk-app.cjs'), 'text');
    expect(r.out['parts']).toBeGreaterThan(0);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0 });
    expect(r.report.groups.map((g) => g.framework)).toEqual(['vercel-ai']);
  });

  it('with the HTTP commit detector switched off, the e-mail that landed after Stop goes unseen, not even a possible ghost (which is why it is on by default)', async () => {
    const r = await runApp(app('ai-sdk-app.mjs'), 'tool-ignores', { AFTERSTOP_DISABLED_INSTRUMENTATIONS: 'http-commits' });
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    // On, the same run gives a possible ghost (its round trip holds the Stop): so the possible count is what tells.
    expect(r.report.totals).toMatchObject({ ghost_commits: 0, ghost_commits_possible: 0 });
    expect(r.report.totals.orphan_tool_calls).toBe(1);
  });

  it('switched off (AFTERSTOP_DISABLED_INSTRUMENTATIONS=ai-sdk): no run, the app runs as before', async () => {
    const r = await runApp(app('ai-sdk-app.mjs'), 'complete', { AFTERSTOP_DISABLED_INSTRUMENTATIONS: 'ai-sdk' });
    expect(r.out).toMatchObject({ toolPartStates: ['output-available'], plainText: 7 });
    expect(r.report?.totals.runs ?? 0).toBe(0);
  });
});
