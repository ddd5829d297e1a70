import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLAUDE_AGENT_SDK_VERSIONS } from '../../auto/claude-agent-sdk.js';
import { readTraces } from '../../../analyzer/index.js';
import { agreesWithTruth, sdkApps, toolResults, truthAfterStop, type AppRun } from '../../../test/helpers/sdk-app.js';

/**
 * The Claude Agent SDK under `node --import afterstop/register`, an app with no afterstop code
 * (scorecard/apps/claude-agent-sdk-app.mjs): `query()` with an abortController, the real Claude Code CLI (from
 * npm's per-platform package) against the simulator's Anthropic endpoint, its Bash tool running a `node -e`
 * that waits, then sends an e-mail to the simulator's effect service. The user aborts while the command waits.
 */
const { app, runApp } = sdkApps();
const APP = app('claude-agent-sdk-app.mjs');

async function spans(r: AppRun) {
  return (await readTraces(r.traces)).spans;
}

describe(`Claude Agent SDK ${CLAUDE_AGENT_SDK_VERSIONS.join(' ')} (0.3.337) query(), Stop while its Bash tool runs`, () => {
  it('the CLI finishes the command and calls the model again after Stop: a cancelled run, the e-mail a possible ghost, the tokens after Stop counted, as the ledger has it', async () => {
    const r = await runApp(APP, 'tool-ignores');
    const stopNs = BigInt(String(r.out['stopNs']));
    // The truth: the e-mail was sent and committed after the Stop; the CLI started a model call after it.
    expect(r.effects).toHaveLength(1);
    expect(r.effects[0]!.committedNs! > stopNs).toBe(true);
    const truth = truthAfterStop(r);
    expect(truth).toMatchObject({ ghostCommits: 1, modelCallsStarted: 1 });
    expect(truth.outputTokensSent).toBeGreaterThan(0);
    const t = r.report.totals;
    expect(t).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1 });
    agreesWithTruth(r);
    const all = await spans(r);
    const run = all.find((s) => s.name.startsWith('invoke_agent'))!;
    expect(run.attributes['afterstop.framework']).toBe('claude-agent-sdk');
    expect(run.attributes['afterstop.run.cost_usd']).toBe(r.out['costUsd']);
    // Instrumented now: not named as a package afterstop does not see into.
    expect(run.attributes['afterstop.run.uninstrumented']).toBeUndefined();
    expect(r.stderr).not.toMatch(/claude-agent-sdk.*is loaded/);
    const tool = all.find((s) => s.name === 'execute_tool Bash')!;
    expect(tool.attributes).toMatchObject({ 'afterstop.tool.out_of_sight': 'subprocess', 'afterstop.tool.effect': 'unknown', 'gen_ai.tool.call.id': 'toolu_1' });
    expect(r.report.findings.filter((f) => f.kind === 'possible_ghost_commit').map((f) => f.tool)).toEqual(['Bash']);
  });

  it('the CLI is killed before the command ends, its worker lives on and sends: the call not delivered, the e-mail a possible ghost, the CLI, the command and the worker (reparented) orphan processes past the grace period, by their first word only', async () => {
    const r = await runApp(APP, 'long-command', { AFTERSTOP_PROCESS_GRACE_MS: '1000' });
    const stopNs = BigInt(String(r.out['stopNs']));
    // The truth: the CLI, signalled 2 s after the abort, killed the command's process tree and died; the worker the
    // command had started in a session of its own sent the e-mail 3 s after the command started.
    expect(r.effects).toHaveLength(1);
    expect(r.effects[0]!.committedNs! > stopNs).toBe(true);
    expect(truthAfterStop(r)).toMatchObject({ ghostCommits: 1, modelCallsStarted: 0 });
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1, orphan_tool_calls: 1 });
    agreesWithTruth(r);
    expect(Object.values(await toolResults(r))).toEqual(['cancelled']);
    const all = await spans(r);
    const spawns = all.filter((s) => s.name === 'afterstop.process.spawn');
    const orphans = all.filter((s) => s.name === 'afterstop.process.orphan');
    // The CLI is the app's child; the command's node its descendant, found in /proc.
    const cli = spawns.find((s) => s.attributes['process.parent_pid'] === r.out['pid'])!;
    expect(cli, JSON.stringify(spawns.map((s) => s.attributes))).toBeDefined();
    const names = orphans.map((s) => s.attributes['process.executable.name']);
    expect(names).toContain(cli.attributes['process.executable.name']);
    expect(names).toEqual(expect.arrayContaining(['bash', 'sleep', 'node']));
    // The worker: reparented when its subshell exited, out of the CLI's tree, found by the run's mark in its environment.
    const worker = orphans.find((s) => s.attributes['process.executable.name'] === 'node')!;
    expect(spawns.map((s) => s.attributes['process.pid'])).not.toContain(worker.attributes['process.parent_pid']);
    expect(orphans.map((s) => s.attributes['process.pid'])).toContain(cli.attributes['process.pid']);
    for (const s of orphans) expect(s.startNs - stopNs).toBeGreaterThanOrEqual(1_000_000_000n);
    // Never the arguments: no attribute of a process marker holds the command's text.
    for (const s of [...spawns, ...orphans]) for (const v of Object.values(s.attributes)) expect(String(v)).not.toMatch(/effects|setTimeout|-e|\s/);
    expect(r.report.totals.orphan_processes).toBe(orphans.length);
  });

  it("the Stop is the Query's interrupt(): a cancel request, the CLI interrupts the command (the e-mail never goes), the call cancelled, as the ledger has it", async () => {
    const r = await runApp(APP, 'interrupt');
    expect(r.effects).toHaveLength(0);
    expect(truthAfterStop(r)).toMatchObject({ ghostCommits: 0 });
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0 });
    agreesWithTruth(r);
    const all = await spans(r);
    expect(all.find((s) => s.name === 'afterstop.cancel.request')?.attributes['afterstop.cancel.reason']).toBe('query.interrupt()');
    expect(all.filter((s) => s.name === 'afterstop.cancel.ack')).toHaveLength(1);
    expect(Object.values(await toolResults(r))).toEqual(['cancelled']);
  });

  it("the guard's deadline passes while the command waits: the query's controller is aborted (the cancel delivered, the turn stopped)", async () => {
    const r = await runApp(APP, 'no-stop', { AFTERSTOP_GUARD_DEADLINE_MS: '1500' });
    // The SDK was stopped: its iteration ended with its abort error, before the command's 3 s.
    expect(String(r.out['error'])).toMatch(/abort/i);
    const all = await spans(r);
    expect(all.find((s) => s.name === 'afterstop.cancel.request')?.attributes).toMatchObject({ 'afterstop.cancel.source': 'timeout', 'afterstop.cancel.delivered': true, 'afterstop.cancel.deadline_ms': 1500 });
    expect(all.find((s) => s.name.startsWith('invoke_agent'))?.attributes['afterstop.run.outcome']).toBe('cancelled');
    expect(all.filter((s) => s.name === 'afterstop.cancel.ack')).toHaveLength(1);
  });
});

describe("Claude Agent SDK query() with the app's own tool (an in-process MCP server), Stop during its POST", () => {
  it("the handler runs in its call's context: the e-mail sent before Stop and landed after it is a possible ghost (its round trip holds the Stop), though the CLI was told the call was cancelled; the effect from the tool's annotations", async () => {
    const r = await runApp(APP, 'mcp-tool');
    const stopNs = BigInt(String(r.out['stopNs']));
    expect(r.effects).toHaveLength(1);
    // The scenario, as the ledger has it: the e-mail committed after the Stop; its POST was made before it (the round
    // trip's start, checked below: when the service got it is load's business, not the verdict's).
    expect(r.effects[0]!.committedNs! > stopNs).toBe(true);
    expect(truthAfterStop(r)).toMatchObject({ ghostCommits: 1 });
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 1, ghost_commits: 0, ghost_commits_possible: 1 });
    expect(r.report.findings.filter((f) => f.kind === 'possible_ghost_commit').map((f) => f.detail)).toEqual([
      expect.stringMatching(
        /^mcp__mail__send_email \(irreversible\) may have committed after Stop: its effect happened between [\d.]+ ms before Stop and [\d.]+ ms after Stop \(its request was sent before Stop and answered after it\)$/,
      ),
    ]);
    agreesWithTruth(r);
    const all = await spans(r);
    const tool = all.find((s) => s.name === 'execute_tool mcp__mail__send_email')!;
    expect(tool.attributes).toMatchObject({ 'afterstop.tool.effect': 'irreversible', 'afterstop.tool.result': 'cancelled' });
    expect(tool.attributes['afterstop.tool.out_of_sight']).toBeUndefined();
    const commit = all.find((s) => s.name === 'afterstop.tool.commit')!;
    expect(commit.attributes).toMatchObject({ 'gen_ai.tool.call.id': tool.attributes['gen_ai.tool.call.id'], 'afterstop.tool.commit.evidence': 'response' });
    expect(commit.startNs > stopNs).toBe(true);
    // Its round trip (the request made to the answer) began before the Stop: the effect's interval holds it.
    const roundTripNs = BigInt(Math.round(Number(commit.attributes['afterstop.tool.commit.round_trip_ms']) * 1e6));
    expect(commit.startNs - roundTripNs < stopNs, 'the round trip began before the Stop').toBe(true);
  });
});

describe("Claude Agent SDK query() inside the app's own run", () => {
  it("joins it: one run (the app's), the CLI's tool and model calls and its process in it, no run of its own", async () => {
    const r = await runApp(fileURLToPath(new URL('../../../test/fixtures/claude-agent-sdk/manual-run-app.mjs', import.meta.url)), 'none');
    expect(r.out['messages']).toContain('result');
    const all = await spans(r);
    const runs = all.filter((s) => s.name.startsWith('invoke_agent'));
    expect(runs.map((s) => [s.attributes['afterstop.run.id'], s.attributes['afterstop.framework']])).toEqual([[r.out['runId'], 'manual']]);
    const ofRun = (name: string) => all.filter((s) => s.name.startsWith(name)).map((s) => s.attributes['afterstop.run.id']);
    expect(ofRun('execute_tool Bash')).toEqual([r.out['runId']]);
    expect(ofRun('chat ')).toEqual([r.out['runId'], r.out['runId']]);
    expect(ofRun('afterstop.process.spawn')).toContain(r.out['runId']);
    expect(r.report.totals).toMatchObject({ runs: 1, cancelled_runs: 0 });
  });
});
