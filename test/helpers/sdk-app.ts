import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { analyze, readTraces, type LeakReport } from '../../analyzer/index.js';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { cleanEnv } from './child.js';

/**
 * Apps that use an SDK directly, run in a child process as
 * `node --import afterstop/register app scenario` against the simulator;
 * then leak-report over the traces they wrote, beside the simulator's ledger.
 * Call {@link sdkApps} at the top of a test file.
 */
export interface AppRun {
  out: Record<string, unknown>;
  report: LeakReport;
  /** The simulator's records of this run's requests. */
  requests: Simulator['ledger']['modelRequests'];
  /** The side effects this run's tools caused. */
  effects: Simulator['ledger']['effects'];
  stderr: string;
  /** The folder the app's traces were written to. */
  traces: string;
}

export function sdkApps(): { app: (name: string) => string; runApp: (file: string, scenario: string, env?: Record<string, string>) => Promise<AppRun> } {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const app = (name: string) => path.join(root, 'test', 'fixtures', 'auto', name);
  let sim: Simulator;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ tokenDelayMs: 10 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-sdk-app-'));
  });
  afterAll(async () => {
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let runs = 0;
  async function runApp(file: string, scenario: string, env: Record<string, string> = {}): Promise<AppRun> {
    const traces = path.join(dir, `${++runs}-${path.basename(file)}-${scenario}`);
    const before = sim.ledger.modelRequests.length;
    const effectsBefore = sim.ledger.effects.length;
    const child = spawn(process.execPath, ['--import', 'afterstop/register', file, scenario], {
      cwd: root,
      env: cleanEnv({ SIM_URL: sim.url, AFTERSTOP_TRACES_DIR: traces, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    await sim.idle();
    const out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    const report = fs.existsSync(traces) ? await analyze({ inputs: [traces], db: ':memory:' }) : (undefined as unknown as LeakReport);
    return { out, report, requests: sim.ledger.modelRequests.slice(before), effects: sim.ledger.effects.slice(effectsBefore), stderr, traces };
  }
  return { app, runApp };
}

/** What really happened after the app's Stop, from the simulator's ledger. */
export function truthAfterStop(r: AppRun): { ghostCommits: number; modelCallsStarted: number; outputTokensSent: number } {
  const stop = BigInt(String(r.out['stopNs']));
  // The user's next turn, or the resume of the thread (when the app says when it began), is a run of its own.
  const nextNs = r.out['nextTurnNs'] ?? r.out['resumeNs'];
  const next = nextNs === undefined ? undefined : BigInt(String(nextNs));
  const before = (ns: bigint): boolean => next === undefined || ns < next;
  return {
    ghostCommits: r.effects.filter((e) => e.committedNs !== null && e.committedNs > stop && before(e.receivedNs)).length,
    modelCallsStarted: r.requests.filter((q) => q.startNs > stop && before(q.startNs)).length,
    outputTokensSent: sentAfter(r),
  };
}

/** Tokens the server wrote after the app's Stop. */
export const sentAfter = (r: AppRun): number => r.requests.flatMap((q) => q.outputTokensSentNs).filter((t) => t > BigInt(String(r.out['stopNs']))).length;

/** What afterstop recorded became of each tool result, by call id. */
export async function toolResults(r: AppRun): Promise<Record<string, unknown>> {
  const spans = (await readTraces(r.traces)).spans.filter((s) => s.name.startsWith('execute_tool '));
  return Object.fromEntries(spans.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['afterstop.tool.result']]));
}

/** leak-report agrees with the ground truth: ghost commits, new model calls, tokens after Stop (within 10%). */
export function agreesWithTruth(r: AppRun): void {
  const truth = truthAfterStop(r);
  const t = r.report.totals;
  expect(t.unended_runs, 'every run ended').toBe(0);
  expect(t.ghost_commits, 'ghost commits').toBe(truth.ghostCommits);
  expect(t.tokens_after_stop.calls_started_after_stop, 'model calls started after Stop').toBe(truth.modelCallsStarted);
  expect(Math.abs(t.tokens_after_stop.output - truth.outputTokensSent), `tokens after Stop: ${t.tokens_after_stop.output} vs ${truth.outputTokensSent} sent`).toBeLessThanOrEqual(Math.max(1, 0.1 * truth.outputTokensSent));
}
