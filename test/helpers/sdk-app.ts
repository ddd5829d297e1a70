import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { readTraces } from '../../analyzer/index.js';
import { appsDir, runApp, truthAfterStop, type AppRun, type GroundTruth } from '../../scorecard/run-app.js';
import { measured, tokensAgree } from '../../scorecard/scorecard.js';
import { startSimulator, type Simulator } from '../../analyzer/simulator/index.js';

/**
 * Apps that use an SDK directly, run in a child process as
 * `node --import afterstop/register app scenario` against the simulator;
 * then leak-report over the traces they wrote, beside the simulator's ledger.
 * Call {@link sdkApps} at the top of a test file.
 */
export type { AppRun } from '../../scorecard/run-app.js';

/** Call at the top of a test file: a simulator for the file, and `runApp` that fails the test when the app fails. */
export function sdkApps(): {
  app: (name: string) => string;
  runApp: (file: string, scenario: string, env?: Record<string, string>) => Promise<AppRun>;
  /** An app that ends by being killed (SIGKILL): its exit is not checked. */
  runKilledApp: (file: string, scenario: string, env?: Record<string, string>) => Promise<AppRun>;
} {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const app = (name: string) => path.join(appsDir(root), name);
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
  const runAny = (file: string, scenario: string, env: Record<string, string> = {}): Promise<AppRun> => runApp(file, scenario, { root, sim, traces: path.join(dir, `${++runs}-${path.basename(file)}-${scenario}`), env });
  async function runOne(file: string, scenario: string, env: Record<string, string> = {}): Promise<AppRun> {
    const r = await runAny(file, scenario, env);
    expect(r.code, r.stderr).toBe(0);
    return r;
  }
  return { app, runApp: runOne, runKilledApp: runAny };
}

/** What really happened after the app's Stop (see scorecard/run-app.ts). */
export { truthAfterStop };

/**
 * afterstop's tokens after Stop against those the server sent after the app's Stop, as the scorecard judges them
 * (scorecard.ts tokensAgree): within the tolerance, the tokens sent before the app acted on a flag Stop allowed.
 */
export function expectTokensAfterStop(measuredTokens: number, truth: GroundTruth): void {
  expect(tokensAgree(measuredTokens, truth), `tokens after Stop: ${measuredTokens} vs ${truth.outputTokensSent} sent (${truth.outputTokensOutOfSight ?? 0} before the app acted)`).toBe(true);
}

/** What afterstop recorded became of each tool result, by call id; `steps: false` leaves out graph steps (a model node). */
export async function toolResults(r: AppRun, options: { steps?: boolean } = {}): Promise<Record<string, unknown>> {
  const spans = (await readTraces(r.traces)).spans.filter((s) => s.name.startsWith('execute_tool ') && (options.steps !== false || s.attributes['afterstop.tool.kind'] !== 'step'));
  return Object.fromEntries(spans.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['afterstop.tool.result']]));
}

/** The spans the app wrote under a name (or `name …`): their attributes, for the markers and calls a test looks at. */
export async function spansNamed(r: AppRun, name: string): Promise<Record<string, unknown>[]> {
  return (await readTraces(r.traces)).spans.filter((s) => s.name === name || s.name.startsWith(`${name} `)).map((s) => s.attributes);
}

/**
 * The app's Stop closed its model request (the i-th the simulator saw), as the simulator's ledger tells it:
 * the client closed it, after the Stop, before the stream was written out (fewer tokens generated than the
 * `scripted` ones its prompt asks for, seconds of them). A Stop that did not reach the request leaves it read
 * to its end (all `scripted` generated, not closed early); a close before the Stop is not the Stop's doing.
 * How fast it closes is the bench's (bench/ sdk-stream), not a test's.
 */
export function expectClosedByStop(r: AppRun, scripted: number, i = 0): void {
  const request = r.requests[i]!;
  expect(request.clientClosedEarly, 'the client closed the request').toBe(true);
  expect(request.endNs >= BigInt(String(r.out['stopNs'])), 'the request closed after the Stop').toBe(true);
  expect(request.outputTokensGenerated, 'the request closed before its stream ended').toBeLessThan(scripted);
}

/**
 * leak-report agrees with the ground truth on every figure the scorecard sets
 * beside it: ghost commits, replays, new model calls, tokens after Stop
 * (within 10%), and, where the app keeps a conversation, takes a next turn or
 * steers, the orphan tool calls, the failed turn and the steering message.
 */
export function agreesWithTruth(r: AppRun): void {
  const truth = truthAfterStop(r);
  const m = measured(r.report);
  expect(r.report.totals.unended_runs, 'every run ended').toBe(0);
  // Every known ghost landed after Stop; every one that landed is known or possible (METRICS.md §2).
  expect(m.ghostCommits, 'known ghost commits').toBeLessThanOrEqual(truth.ghostCommits);
  expect(m.ghostCommits + m.possibleGhostCommits, 'known and possible ghost commits').toBeGreaterThanOrEqual(truth.ghostCommits);
  expect(m.replayDuplicates, 'replay duplicates').toBe(truth.replays);
  expect(m.modelCallsAfterStop, 'model calls started after Stop').toBe(truth.modelCallsStarted);
  expectTokensAfterStop(m.outputTokensAfterStop, truth);
  if (truth.orphans !== undefined) expect(m.orphanToolCalls, 'orphan tool calls').toBe(truth.orphans);
  if (truth.nextTurnFailed !== undefined) expect(m.nextTurnErrors, 'next-turn errors').toBe(truth.nextTurnFailed ? 1 : 0);
  if (truth.steering !== undefined) expect({ violations: m.steering.violations, dropped: m.steering.dropped }, 'steering').toEqual(truth.steering);
}
