import { describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { agreesWithTruth, sdkApps, toolResults, truthAfterStop, type AppRun } from '../../../test/helpers/sdk-app.js';

/**
 * The real `@langchain/langgraph` under `node --import afterstop/register`:
 * a graph that charges a card then sends a receipt, checkpointed by a
 * MemorySaver, stopped and resumed; leak-report checked against the side
 * effects the simulator saw.
 */
const { app, runApp } = sdkApps();
const run = (scenario: string) => runApp(app('langgraph-app.mjs'), scenario);

/** A possible ghost whose POST's round trip holds the Stop (possible_kind across_stop): sent before Stop, answered after it. */
const acrossStop = (tool: string): RegExp =>
  new RegExp(`^${tool} \\(effect unknown\\) may have committed after Stop: its effect happened between [\\d.]+ ms before Stop and [\\d.]+ ms after Stop \\(its request was sent before Stop and answered after it\\)$`);
const possibleGhosts = (r: AppRun): string[] => r.report.findings.filter((f) => f.kind === 'possible_ghost_commit').map((f) => f.detail);

/** Side effects committed more than once: the replays that really happened. */
const replays = (r: AppRun): number => truthAfterStop(r).replays;

/** The thread's two runs in order; the second names the first as the run it resumes. */
async function resumeLinked(r: AppRun): Promise<void> {
  const runs = (await readTraces(r.traces)).spans.filter((s) => s.name === 'invoke_agent').sort((a, b) => Number(a.startNs - b.startNs));
  expect(runs).toHaveLength(2);
  expect(runs[0]!.attributes['afterstop.run.resumes']).toBeUndefined();
  expect(runs[1]!.attributes['afterstop.run.resumes']).toBe(runs[0]!.attributes['afterstop.run.id']);
}

describe('LangGraph.js under afterstop/register', () => {
  it('a run to its end: one run on the thread, each node a call delivered, nothing replayed', async () => {
    const r = await run('complete');
    expect(r.out['state']).toEqual({ charged: true, notified: true });
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 0, replay_duplicates: 0, unended_runs: 0 });
    expect(r.report.groups.map((g) => g.framework)).toEqual(['langgraph']);
    expect(Object.values(await toolResults(r))).toEqual(['delivered', 'delivered']);
  });

  it('Stop (signal) while the payment is in flight: invoke returns at once, the payment commits after it (a possible ghost: its round trip holds the Stop), and the resume charges again (a replay)', async () => {
    const r = await run('abort-resume');
    expect(r.out['error']).toBe('AbortError');
    // At once: invoke returned before the payment it left in flight committed (the service takes 200 ms; the Stop
    // came 50 ms in). An invoke that waited for its node would return after the commit.
    const charge = r.effects.find((e) => e.name === 'charge' && e.outcome === 'committed');
    expect(BigInt(String(r.out['returnedNs'])) < charge!.committedNs!, 'invoke returned before the payment committed').toBe(true);
    // Committed after the Stop, as the ledger has it; its request was made before the Stop (50 ms into the call), so
    // its round trip holds the Stop: a possible ghost. (When the service got it is load's business, not the verdict's.)
    expect(charge!.committedNs! > BigInt(String(r.out['stopNs'])), 'the payment committed after the Stop').toBe(true);
    expect(replays(r)).toBe(1);
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, replay_duplicates: 1, replayed_conversations: 1 });
    expect(possibleGhosts(r)).toEqual([expect.stringMatching(acrossStop('charge'))]);
    expect(r.report.findings.find((f) => f.kind === 'replay_duplicate')?.detail).toMatch(/^charge committed thread-abort-resume:/);
    agreesWithTruth(r);
    await resumeLinked(r);
  });

  for (const scenario of ['break-resume', 'cancel-resume']) {
    it(`Stop by leaving the stream (${scenario}): the receipt in flight is sent anyway, and sent again on resume`, async () => {
      const r = await run(scenario);
      expect(replays(r)).toBe(1);
      expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, replay_duplicates: 1 });
      expect(r.report.findings.find((f) => f.kind === 'replay_duplicate')?.detail).toMatch(/^notify committed/);
      agreesWithTruth(r);
      await resumeLinked(r);
    });
  }

  it('the app cancels the stream and reads no more: the run still ends (acknowledged), the receipt’s POST in flight at Stop commits after it: a possible ghost (its round trip holds the Stop)', async () => {
    const r = await run('cancel-abandon');
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, unended_runs: 0, ghost_commits: 0, ghost_commits_possible: 1 });
    expect(possibleGhosts(r)).toEqual([expect.stringMatching(acrossStop('notify'))]);
    agreesWithTruth(r);
  });

  it('an interrupt after the side effect is a pause, not a cancel or an error; the resume re-runs the node: a replay', async () => {
    const r = await run('interrupt-resume');
    expect(r.out).toMatchObject({ interrupted: true, resumed: { charged: true, notified: true } });
    expect(replays(r)).toBe(1);
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0, cleanup_errors: 0, replay_duplicates: 1, unended_runs: 0 });
    expect(r.report.totals.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 0, other: 0 });
    agreesWithTruth(r);
    await resumeLinked(r);
    // A pause, not an error: no span of either run has status ERROR, and the interrupted node's call ends without an error type.
    const spans = (await readTraces(r.traces)).spans;
    expect(spans.filter((s) => s.statusCode === 2).map((s) => s.name)).toEqual([]);
    expect(spans.filter((s) => s.name.startsWith('execute_tool ') && s.attributes['error.type'] !== undefined)).toEqual([]);
  });

  it('interruptBefore the payment node: a pause before any effect; the resume charges once, names the run it resumes, and nothing is replayed', async () => {
    const r = await run('interrupt-before');
    expect(r.out['paused']).toEqual({ charged: false });
    expect(r.effects.filter((e) => e.name === 'charge')).toHaveLength(1);
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 0, replay_duplicates: 0, cleanup_errors: 0, unended_runs: 0 });
    agreesWithTruth(r);
    await resumeLinked(r);
  });

  it('a drain (RunControl.requestDrain) while the payment is in flight: the step finishes and is kept, the resume does not charge again', async () => {
    const r = await run('drain');
    expect(r.out['error']).toBe('GraphDrained');
    expect(replays(r)).toBe(0);
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, replay_duplicates: 0, orphan_tool_calls: 0, cleanup_errors: 0 });
    agreesWithTruth(r);
    await resumeLinked(r);
  });
});

describe('a LangGraph tool-calling agent (ChatOpenAI streaming, the prebuilt ToolNode) under afterstop/register', () => {
  const agent = (scenario: string, env?: Record<string, string>) => runApp(app('langgraph-agent-app.mjs'), scenario, env);

  it('a turn with a tool: the tool call carries the model’s id and is delivered; the model node is a step', async () => {
    const r = await agent('complete');
    expect(r.out['messages']).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 0, unended_runs: 0 });
    const results = await toolResults(r);
    expect(results[r.requests[0]!.toolCalls[0]!.id]).toBe('delivered');
  });

  it('Stop during the model stream: the request closed, no orphan (the aborted model node is a step, not a tool call of the conversation)', async () => {
    const r = await agent('text');
    expect(r.requests[0]!.clientClosedEarly).toBe(true);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, unacknowledged_cancels: 0, orphan_tool_calls: 0, ghost_commits: 0 });
    agreesWithTruth(r);
  });

  it('Stop before the tool starts: no effect, no orphan', async () => {
    const r = await agent('before-tool');
    expect(r.effects).toEqual([]);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, orphan_tool_calls: 0, ghost_commits: 0 });
    agreesWithTruth(r);
  });

  it('Stop while the tool’s POST is in flight: the mail goes (a possible ghost: its round trip holds the Stop), the checkpoint keeps the tool call without its result (an orphan), and the next message is refused with a 400', async () => {
    const r = await agent('tool-next');
    expect(r.out).toMatchObject({ checkpoint: ['human', 'ai'], nextTurnError: 400 });
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    expect(possibleGhosts(r)).toEqual([expect.stringMatching(acrossStop('send_email'))]);
    expect(r.report.totals.post_cancel_errors).toEqual({ orphan_tool_call_rejected: 1, other: 0 });
    agreesWithTruth(r);
  });

  it('Stop while two tools run side by side, one already returned: the node’s messages are written together, so both results are lost (two orphans), and only the e-mail may be a ghost (its POST aborted after it reached the service)', async () => {
    const r = await agent('parallel', { HONOUR: '1' });
    expect(r.out['toolsRan']).toHaveLength(2);
    expect(r.out['toolResultsKept']).toEqual([]);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 2 });
    const results = await toolResults(r, { steps: false });
    expect(Object.values(results).sort()).toEqual(['cancelled', 'dropped']);
    agreesWithTruth(r);
  });

  it('the prebuilt createReactAgent, streamed with streamMode "messages": a turn with a tool is delivered, and a Stop during the tool leaves the same possible ghost and orphan', async () => {
    const done = await agent('complete', { PREBUILT: '1' });
    expect(done.out['messages']).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(Object.values(await toolResults(done, { steps: false }))).toEqual(['delivered']);
    const r = await agent('tool-next', { PREBUILT: '1' });
    expect(r.out).toMatchObject({ checkpoint: ['human', 'ai'], nextTurnError: 400 });
    expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    expect(possibleGhosts(r)).toEqual([expect.stringMatching(acrossStop('send_email'))]);
    agreesWithTruth(r);
  });

  for (const middleware of [false, true]) {
    it(`LangChain 1's createAgent${middleware ? ', with a middleware around its model and tool calls' : ''}: a turn with a tool is delivered; a Stop during the tool leaves a possible ghost (its round trip holds the Stop) and the orphan, and the next message is refused`, async () => {
      const env: Record<string, string> = { CREATE_AGENT: '1', ...(middleware ? { MIDDLEWARE: '1' } : {}) };
      const done = await agent('complete', env);
      expect(done.out['messages']).toEqual(['human', 'ai', 'tool', 'ai']);
      if (middleware) expect(done.out['middlewareToolCalls']).toBe(1);
      expect(Object.values(await toolResults(done, { steps: false }))).toEqual(['delivered']);
      const r = await agent('tool-next', env);
      expect(r.out).toMatchObject({ checkpoint: ['human', 'ai'], nextTurnError: 400 });
      expect(r.report.totals).toMatchObject({ runs: 2, cancelled_runs: 1, unacknowledged_cancels: 0, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
      expect(possibleGhosts(r)).toEqual([expect.stringMatching(acrossStop('send_email'))]);
      expect(r.report.groups.map((g) => g.framework)).toEqual(['langgraph']);
      agreesWithTruth(r);
    });
  }

  it('a tool that throws beside one that returned, no Stop: the node fails and its messages are lost, so the returned result is dropped, not delivered', async () => {
    const r = await agent('tool-fails', { FAIL: '1' });
    expect(r.out['error']).toMatch(/mail service unavailable/);
    expect(r.out['toolResultsKept']).toEqual([]);
    const spans = (await readTraces(r.traces)).spans.filter((x) => x.name.startsWith('execute_tool '));
    const byName = Object.fromEntries(spans.map((x) => [x.name, x]));
    expect(byName['execute_tool log_event']?.attributes['afterstop.tool.result']).toBe('dropped');
    expect(byName['execute_tool send_email']?.statusCode).toBe(2);
  });
});
