import { describe, expect, it } from 'vitest';
import { readTraces, type FlatSpan } from '../../../analyzer/index.js';
import { sdkApps, truthAfterStop, type AppRun } from '../../../test/helpers/sdk-app.js';

/**
 * Frameworks afterstop does not patch, measured through their own GenAI spans: Strands Agents 1.19.0 and
 * Google ADK 2.0.0 run as their users run them under `node --import afterstop/register` against the
 * simulator, their e-mail tool stopped while its POST is in flight. The tool call is the framework's own
 * `execute_tool` span (written through afterstop's tracer provider); the e-mail's commit is an
 * `afterstop.tool.commit` marker under it with `afterstop.tool.foreign`, dated after the Stop, as the
 * simulator's ledger says the e-mail was committed.
 */
const { app, runApp } = sdkApps();

/** The framework's execute_tool span for the tool, and the commit markers under it. */
async function foreignCall(r: AppRun, scope: string): Promise<{ tool: FlatSpan; commits: FlatSpan[]; spans: FlatSpan[] }> {
  const spans = (await readTraces(r.traces)).spans;
  const tools = spans.filter((s) => s.name === 'execute_tool send_email' && s.scope === scope);
  expect(tools).toHaveLength(1);
  const tool = tools[0]!;
  return { tool, commits: spans.filter((s) => s.name === 'afterstop.tool.commit' && s.parentSpanId === tool.spanId), spans };
}

const stopOf = (r: AppRun): bigint => BigInt(String(r.out['stopNs']));

/** leak-report's one ghost of the run: the e-mail's POST, sent before Stop and answered after it, a possible ghost (possible_kind across_stop). */
function expectAcrossStop(r: AppRun): void {
  expect(r.report.totals).toMatchObject({ ghost_commits: 0, ghost_commits_possible: 1 });
  expect(r.report.findings.filter((f) => f.kind === 'possible_ghost_commit').map((f) => f.detail)).toEqual([
    expect.stringMatching(
      /^send_email \(effect unknown\) may have committed after Stop: its effect happened between [\d.]+ ms before Stop and [\d.]+ ms after Stop \(its request was sent before Stop and answered after it\)$/,
    ),
  ]);
}

describe('tool calls of frameworks afterstop does not patch, through their execute_tool spans', () => {
  it('Strands, Stop by its cancelSignal, the tool ignores it: the e-mail’s commit is a marker under Strands’ execute_tool span, foreign, after the Stop as the ledger says', async () => {
    const r = await runApp(app('strands-app.mjs'), 'tool-ignores');
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    const { tool, commits } = await foreignCall(r, 'strands-agents');
    expect(commits).toHaveLength(1);
    const [commit] = commits;
    expect(commit!.traceId).toBe(tool.traceId);
    expect(commit!.scope).toBe('afterstop');
    expect(commit!.attributes).toMatchObject({
      'afterstop.tool.foreign': true,
      'gen_ai.tool.name': 'send_email',
      'gen_ai.tool.call.id': tool.attributes['gen_ai.tool.call.id'],
      'afterstop.tool.commit.evidence': 'response',
      'http.request.method': 'POST',
      'http.response.status_code': 200,
    });
    // afterstop knows of no Stop here (Strands' spans record none): no run, no cancel state on the marker.
    expect(commit!.attributes['afterstop.cancel.state']).toBeUndefined();
    // The answer came once the service had committed, after the Stop (the ledger, above): the marker is dated
    // then, after the app's Stop (the same process's clock).
    expect(commit!.startNs > stopOf(r)).toBe(true);
  });

  it('Strands, the tool honours the cancelSignal: its cut POST is a request_sent commit under the foreign span (a possible effect), at the Stop', async () => {
    const r = await runApp(app('strands-app.mjs'), 'tool-ignores', { HONOUR: '1' });
    const { tool, commits } = await foreignCall(r, 'strands-agents');
    expect(commits.map((c) => c.attributes['afterstop.tool.commit.evidence'])).toEqual(['request_sent']);
    expect(commits[0]!.attributes['afterstop.tool.foreign']).toBe(true);
    expect(commits[0]!.startNs > stopOf(r)).toBe(true);
    expect(tool.statusCode).toBe(2);
  });

  it('Strands, Stop through an afterstop run (the manual API): the foreign commit after Stop carries the run and its cancel state, and leak-report counts it a possible ghost (its round trip holds the Stop), as the ledger allows', async () => {
    const r = await runApp(app('strands-app.mjs'), 'tool-ignores', { STOP_VIA_RUN: '1' });
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    const { commits, spans } = await foreignCall(r, 'strands-agents');
    const run = spans.find((s) => s.name === 'invoke_agent support' && s.scope === 'afterstop')!;
    expect(commits).toHaveLength(1);
    expect(commits[0]!.attributes).toMatchObject({ 'afterstop.tool.foreign': true, 'afterstop.run.id': run.attributes['afterstop.run.id'], 'afterstop.cancel.state': 'requested' });
    expectAcrossStop(r);
  });

  it('Strands, Stop through an afterstop run, the guard’s fence on, the tool sends after the Stop: the POST is refused, a prevented marker under the foreign span, no e-mail', async () => {
    const r = await runApp(app('strands-app.mjs'), 'tool-ignores', { STOP_VIA_RUN: '1', PREPARE_MS: '300', AFTERSTOP_GUARD_FENCE: 'true' });
    expect(r.effects).toEqual([]);
    const { tool, commits, spans } = await foreignCall(r, 'strands-agents');
    expect(commits).toEqual([]);
    const prevented = spans.filter((s) => s.name === 'afterstop.tool.commit.prevented' && s.parentSpanId === tool.spanId);
    expect(prevented).toHaveLength(1);
    expect(prevented[0]!.attributes).toMatchObject({ 'afterstop.tool.foreign': true, 'gen_ai.tool.name': 'send_email', 'afterstop.cancel.state': 'requested' });
    expect(r.report.totals.commits_prevented).toBe(1);
  });

  it('Google ADK, Stop by its runner’s abortSignal, the tool ignores it: the commit under ADK’s execute_tool span, named from the span (ADK sets its attributes only at the end), after the Stop', async () => {
    const r = await runApp(app('google-adk-app.mjs'), 'tool-ignores');
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    const { commits } = await foreignCall(r, 'gcp.vertex.agent');
    expect(commits).toHaveLength(1);
    expect(commits[0]!.attributes).toMatchObject({ 'afterstop.tool.foreign': true, 'gen_ai.tool.name': 'send_email', 'afterstop.tool.commit.evidence': 'response' });
    // The call id is ADK's only once its span ends: the marker, written before, has its parent to say which call.
    expect(commits[0]!.attributes['gen_ai.tool.call.id']).toBeUndefined();
    expect(commits[0]!.startNs > stopOf(r)).toBe(true);
  });

  it('Google ADK, Stop through an afterstop run: the run’s context reaches ADK’s tool, its commit after Stop carries the run, a possible ghost (its round trip holds the Stop), as the ledger allows', async () => {
    const r = await runApp(app('google-adk-app.mjs'), 'tool-ignores', { STOP_VIA_RUN: '1' });
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    const { commits } = await foreignCall(r, 'gcp.vertex.agent');
    expect(commits).toHaveLength(1);
    expect(commits[0]!.attributes).toMatchObject({ 'afterstop.tool.foreign': true, 'afterstop.cancel.state': 'requested' });
    expect(typeof commits[0]!.attributes['afterstop.run.id']).toBe('string');
    expectAcrossStop(r);
  });
});
