import { describe, expect, it } from 'vitest';
import { sdkApps, truthAfterStop } from '../../../test/helpers/sdk-app.js';

/**
 * The guard through each instrumented framework, as a user runs it (`node
 * --import afterstop/register`, the guard from the environment), against the
 * simulator's ledger of what really happened.
 */
const { app, runApp } = sdkApps();
const FENCE = { AFTERSTOP_GUARD_FENCE: 'true' };
/** The tool takes 300 ms to compose its mail, ignoring the signal: it sends after the Stop. */
const LATE = { PREPARE_MS: '300' };

describe.each([
  ['Vercel AI SDK (streamText)', 'ai-sdk-app.mjs', 'tool-ignores', { PROVIDER: 'openai' }],
  ['OpenAI Agents JS (streamed run)', 'openai-agents-app.mjs', 'next-turn', {}],
  ['LangGraph.js (StateGraph agent, ToolNode)', 'langgraph-agent-app.mjs', 'tool-next', {}],
  ['Mastra (Agent.stream)', 'mastra-app.mjs', 'tool-ignores', {}],
])('the commit fence: %s, a tool that ignores the signal and sends after Stop', (_name, file, scenario, env) => {
  it('without the guard, its e-mail lands after Stop (a ghost commit)', async () => {
    const r = await runApp(app(file), scenario, { ...env, ...LATE });
    expect(r.code, r.stderr).toBe(0);
    expect(truthAfterStop(r).ghostCommits).toBe(1);
    expect(r.report.totals.commits_prevented).toBe(0);
  });

  it('with the fence, nothing reaches the service, the app runs on, and the report counts the prevented commit', async () => {
    const r = await runApp(app(file), scenario, { ...env, ...LATE, ...FENCE });
    expect(r.code, r.stderr).toBe(0);
    expect(r.effects.filter((e) => e.name === 'send_email')).toEqual([]);
    expect(truthAfterStop(r).ghostCommits).toBe(0);
    expect(r.report.totals).toMatchObject({ commits_prevented: 1, commits_prevented_alarming: 1, ghost_commits: 0 });
    expect(r.report.totals.ghost_commits_by_tool).toEqual([expect.objectContaining({ tool: 'send_email', commits_prevented: 1 })]);
  });
});

describe('the commit fence: LlamaIndex Workflows (no cancel; the app leaves the event stream)', () => {
  it('a step that would charge after the app left is refused; the workflow goes no further and the process exits cleanly', async () => {
    const plain = await runApp(app('llamaindex-app.mjs'), 'cancel-reader');
    const guarded = await runApp(app('llamaindex-app.mjs'), 'cancel-reader', FENCE);
    expect(guarded.code, guarded.stderr).toBe(0);
    expect(truthAfterStop(plain).ghostCommits).toBeGreaterThan(truthAfterStop(guarded).ghostCommits);
    expect(guarded.report.totals.commits_prevented).toBeGreaterThanOrEqual(1);
    expect(guarded.effects.filter((e) => e.name === 'notify')).toEqual([]);
  });
});

describe('idempotency keys: LangGraph.js, Stop then resume of the thread', () => {
  it('the resume replays the payment with the same key: the service refuses it as a duplicate, and the report counts it deduplicated, not a replay', async () => {
    const plain = await runApp(app('langgraph-app.mjs'), 'abort-resume');
    expect(plain.effects.filter((e) => e.name === 'charge').map((e) => e.outcome)).toEqual(['committed', 'committed']);
    expect(plain.report.totals).toMatchObject({ replay_duplicates: 1, replays_deduplicated: 0 });
    const keyed = await runApp(app('langgraph-app.mjs'), 'abort-resume', { AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS: '127.0.0.1' });
    expect(keyed.code, keyed.stderr).toBe(0);
    const charges = keyed.effects.filter((e) => e.name === 'charge');
    expect(charges.map((e) => e.outcome)).toEqual(['committed', 'deduplicated']);
    expect(charges[1]!.idempotencyKey).toBe(charges[0]!.idempotencyKey);
    expect(keyed.report.totals).toMatchObject({ replay_duplicates: 0, replays_deduplicated: 1 });
  });
});
