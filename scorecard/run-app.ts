import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyze, type LeakReport } from '@afterstop/analyzer';
import type { Simulator } from '@afterstop/analyzer/simulator';

/**
 * One app of scorecard/apps run as a user runs it, `node --import
 * afterstop/register app scenario`, against the simulator (SIM_URL); then
 * leak-report over the traces it wrote, beside the simulator's ledger of
 * what really happened. The tests and `afterstop scorecard` share it.
 */
export interface AppRun {
  /** The app's last stdout line: what it saw (and when it pressed Stop: `stopNs`). */
  out: Record<string, unknown>;
  report: LeakReport;
  /** The simulator's records of this run's model requests. */
  requests: Simulator['ledger']['modelRequests'];
  /** The side effects this run's tools caused. */
  effects: Simulator['ledger']['effects'];
  stderr: string;
  code: number | null;
  /** The folder the app's traces were written to. */
  traces: string;
}

export interface RunAppOptions {
  /** The project root (where `afterstop/register` resolves). */
  root: string;
  sim: Simulator;
  /** The traces folder to create for this run. */
  traces: string;
  env?: Record<string, string>;
  /** Awaited after the app exited, before the ledger and the traces are read: what else must finish first (a service's work). */
  settle?: () => Promise<void>;
}

/** Our environment without what would change afterstop's or the SDK's own setup (the tests' children use it too). */
export function appEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('OTEL_') || key.startsWith('AFTERSTOP_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

export async function runApp(file: string, scenario: string, options: RunAppOptions): Promise<AppRun> {
  const { sim, traces } = options;
  const before = sim.ledger.modelRequests.length;
  const effectsBefore = sim.ledger.effects.length;
  const child = spawn(process.execPath, ['--import', 'afterstop/register', file, scenario], {
    cwd: options.root,
    env: appEnv({ SIM_URL: sim.url, AFTERSTOP_TRACES_DIR: traces, ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  await options.settle?.();
  await sim.idle();
  let out: Record<string, unknown> = {};
  try {
    out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
  } catch {
    // the app failed before its last line: `code` and `stderr` say why
  }
  const report = fs.existsSync(traces) ? await analyze({ inputs: [traces], db: ':memory:' }) : (undefined as unknown as LeakReport);
  return { out, report, requests: sim.ledger.modelRequests.slice(before), effects: sim.ledger.effects.slice(effectsBefore), stderr, code, traces };
}

/** Where the apps live. */
export const appsDir = (root: string): string => path.join(root, 'scorecard', 'apps');

/** What really happened after the app's Stop, from the simulator's ledger. */
export interface GroundTruth {
  ghostCommits: number;
  modelCallsStarted: number;
  outputTokensSent: number;
  /**
   * Of those, the tokens sent between the app's Stop and the moment it acted on it, when the app says when
   * (`actedNs`: a loop that checks a flag leaves the stream at its next chunk). Nothing marks the press before
   * that moment, so no trace can date these tokens after it: the agreement counts them as out of sight
   * (scorecard.ts tokensAgree), not as afterstop's miss. Undefined: the app acts at its Stop.
   */
  outputTokensOutOfSight?: number;
  /** Side effects committed more than once (by name): the replays that really happened. */
  replays: number;
  /** Requests the service answered as a repeat of a committed one (the same Idempotency-Key): replays it did once. */
  deduplicated: number;
  /** The user's next turn failed, as the app saw it (undefined: the app took no next turn). */
  nextTurnFailed?: boolean;
  /** Tool calls that ran before or after the Stop and whose result (real or repaired) is not in the history the app keeps (undefined: the app keeps no conversation, or there was no Stop). */
  orphans?: number;
  /** Steering messages the app put between a tool call and its result, or never put in (undefined: it did not steer). */
  steering?: { violations: number; dropped: number };
}

/** Calls that ran, once each, without a result kept. */
function orphansOf(ran: unknown[], kept: unknown[]): number {
  const keptIds = new Set(kept);
  return new Set(ran.filter((id) => !keptIds.has(id))).size;
}

export function truthAfterStop(r: AppRun): GroundTruth {
  const stop = r.out['stopNs'] === undefined ? undefined : BigInt(String(r.out['stopNs']));
  const acted = r.out['actedNs'] === undefined ? undefined : BigInt(String(r.out['actedNs']));
  // The user's next turn, or the resume of the thread (when the app says when it began), is a run of its own.
  const nextNs = r.out['nextTurnNs'] ?? r.out['resumeNs'];
  const next = nextNs === undefined ? undefined : BigInt(String(nextNs));
  const before = (ns: bigint): boolean => next === undefined || ns < next;
  const after = (ns: bigint): boolean => stop !== undefined && ns > stop;
  const tokensAfter = r.requests.flatMap((q) => q.outputTokensSentNs).filter(after);
  const counts = new Map<string, number>();
  for (const e of r.effects) if (e.outcome === 'committed') counts.set(e.name, (counts.get(e.name) ?? 0) + 1);
  return {
    ghostCommits: r.effects.filter((e) => e.committedNs !== null && after(e.committedNs) && before(e.receivedNs)).length,
    modelCallsStarted: r.requests.filter((q) => after(q.startNs) && before(q.startNs)).length,
    outputTokensSent: tokensAfter.length,
    ...(acted !== undefined ? { outputTokensOutOfSight: tokensAfter.filter((ns) => ns <= acted).length } : {}),
    replays: [...counts.values()].reduce((n, c) => n + c - 1, 0),
    deduplicated: r.effects.filter((e) => e.outcome === 'deduplicated').length,
    ...(r.out['nextTurnNs'] !== undefined ? { nextTurnFailed: r.out['nextTurnError'] !== undefined } : {}),
    ...(stop !== undefined && Array.isArray(r.out['toolsRan']) ? { orphans: orphansOf(r.out['toolsRan'] as unknown[], (r.out['toolResultsKept'] as unknown[] | undefined) ?? []) } : {}),
    ...(r.out['steerInjected'] !== undefined ? { steering: { violations: r.out['steerInsideToolBatch'] === true ? 1 : 0, dropped: r.out['steerInjected'] === true ? 0 : 1 } } : {}),
  };
}
