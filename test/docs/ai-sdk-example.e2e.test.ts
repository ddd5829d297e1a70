import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '@afterstop/analyzer';
import { startSimulator, type Simulator } from '@afterstop/analyzer/simulator';
import { verdict } from '../../analyzer/render/verdict.js';
import { type ChildResult, lastJson, runFile } from '../helpers/child.js';

/**
 * The README's path from one's own agent to a report: docs/examples/ai-sdk-agent.mjs (the AI SDK's
 * streamText, a tool that does not listen to Stop, a stopped stream) run as its reader runs it, under
 * `node --import afterstop/register` (the packed afterstop in the e2e tier), then the leak report over the
 * traces it wrote, held to the simulator's ledger.
 */
const example = fileURLToPath(new URL('../../docs/examples/ai-sdk-agent.mjs', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('docs/examples/ai-sdk-agent.mjs under afterstop/register', () => {
  let sim: Simulator;
  let traces: string;
  let out: ChildResult;
  let report: LeakReport;
  beforeAll(async () => {
    traces = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-ai-sdk-example-'));
    sim = await startSimulator({ tokenDelayMs: 5 });
    // From the repository's root, where `afterstop/register` resolves as from a user's project.
    out = await runFile(example, [], { nodeArgs: ['--import', 'afterstop/register'], env: { SIMULATOR_URL: sim.url, AFTERSTOP_TRACES_DIR: traces }, cwd: root, timeoutMs: 60_000 });
    await sim.idle();
    report = await analyze({ inputs: [traces], db: ':memory:' });
  });
  afterAll(async () => {
    await sim?.close();
    fs.rmSync(traces, { recursive: true, force: true });
  });

  it('runs to its end: the e-mail turn and the stream both stopped by the user', () => {
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('turn 1: stopped (Stop pressed while send_email ran)');
    expect(out.stdout).toContain('turn 2: stopped after 10 tokens');
  });

  it('the report finds the e-mail the ledger saw committed after Stop, and says so first', () => {
    const facts = lastJson<{ stopNs: string; effects: { name: string; outcome: string; committedNs: string }[] }>(out);
    const email = facts.effects.find((e) => e.name === 'send_email')!;
    expect(email.outcome).toBe('committed');
    expect(BigInt(email.committedNs)).toBeGreaterThan(BigInt(facts.stopNs));
    // The tool made its request after the Stop: a known ghost, not a possible one.
    expect(report.totals.ghost_commits).toBe(1);
    expect(report.totals.ghost_commits_possible).toBe(0);
    expect(report.totals.ghost_commits_by_tool.map((t) => [t.tool, t.ghost_commits])).toEqual([['send_email', 1]]);
    expect(report.totals.cancelled_runs).toBe(2);
    expect(report.totals.cancel_depth_by_framework.map((f) => f.framework)).toEqual(['vercel-ai']);
    const v = verdict(report);
    expect(v.status).toBe('attention');
    expect(v.sentence).toMatch(/^1 side effect \(send_email, effect unknown\) was committed after the user pressed Stop/);
  });

  it("the stopped stream's tokens after Stop: at most those the ledger sent after the Stop", () => {
    const stream = sim.ledger.modelRequests.find((r) => r.clientClosedEarly)!;
    expect(stream.outputTokensSent).toBeGreaterThanOrEqual(10);
    const counted = report.totals.tokens_after_stop.output;
    expect(counted).toBeLessThanOrEqual(stream.outputTokensSent - 10);
  });
});
