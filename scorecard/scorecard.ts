import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LeakReport } from '@afterstop/analyzer';
import { readTraces } from '@afterstop/analyzer';
import { startSimulator } from '@afterstop/analyzer/simulator';
import { appsDir, runApp, truthAfterStop, type AppRun, type GroundTruth, type RunAppOptions } from './run-app.js';
import { versionedApp } from './versioned-app.js';
import { FRAMEWORKS, MCP_FRAMEWORKS, MOMENTS, TRACED_APPS, type Moment } from './scenarios.js';
import { startFileReceiver, startTracedService, type ServiceProcess } from './traced-service.js';

/** One framework stopped at one moment: what leak-report measured, beside what the simulator saw. */
export interface ScoreCell {
  framework: string;
  moment: Moment;
  scenario: string;
  /** The app ran to its end (exit 0). */
  ran: boolean;
  measured?: {
    cancelDepth: number | null;
    ackMs: number | null;
    settleMs: number | null;
    ghostCommits: number;
    /** Side effects in flight at Stop whose outcome afterstop could not see (METRICS.md §2, possible ghost commits). */
    possibleGhostCommits: number;
    orphanToolCalls: number;
    replayDuplicates: number;
    /** Replays whose request carried the earlier commit's idempotency key (the guard). */
    replaysDeduplicated: number;
    /** Commits the guard's fence refused after Stop. */
    commitsPrevented: number;
    modelCallsAfterStop: number;
    outputTokensAfterStop: number;
    nextTurnErrors: number;
    steering: { injectMs: number | null; violations: number; dropped: number };
  };
  truth?: GroundTruth;
  /** afterstop's figures equal the ground truth (ghosts, replays, new model calls; tokens within 10%). */
  agrees?: boolean;
  /** The known limit that explains a disagreement (scenarios.ts). */
  limit?: string;
  error?: string;
  /** The same cell again with the guard on (fence and idempotency keys, {@link GUARD_ENV}): what it prevented, measured the same way. */
  guarded?: GuardedCell;
  /** A "tool honours the signal" cell again, its tool's effect service traced by OpenTelemetry: what the service's witness decided. */
  traced?: TracedCell;
}

/**
 * A cell run again against the traced effect service (test/fixtures/witness/traced-service.mjs: OpenTelemetry's
 * Node SDK and HTTP instrumentation, a work span around its write), in its own process, its clock {@link TRACED_SHIFT}
 * off the app's (libfaketime); its spans reach the report through an OTLP/HTTP receiver's file beside the app's traces.
 */
export interface TracedCell {
  ran: boolean;
  /** The service's clock shift (libfaketime's offset). */
  shift: string;
  measured?: NonNullable<ScoreCell['measured']>;
  truth?: GroundTruth;
  agrees?: boolean;
  /** Known ghosts the service witnessed, and commits its witness ruled out (the report's ghost_commits_confirmed, ghost_commits_ruled_out). */
  confirmed?: number;
  ruledOut?: number;
  /** The service's request span is a child of the app's request (the tool's request carried its trace context). */
  joined?: boolean;
  error?: string;
}

/** The traced service's clock: 5 s behind the app's (a late effect would look early on its clock). */
export const TRACED_SHIFT = '-5s';

/**
 * The moments whose cells run again against the traced service: the tool's request cut by its signal, and the
 * request the tool let run across the Stop (its round trip holds C: the client alone cannot date the effect).
 */
export const TRACED_MOMENTS: readonly Moment[] = ['tool-honours', 'tool-ignores'];

/** A cell run again with the guard on. */
export interface GuardedCell {
  ran: boolean;
  measured?: NonNullable<ScoreCell['measured']>;
  truth?: GroundTruth;
  agrees?: boolean;
  /** For a cell without a Stop: the fence refused nothing and every side effect was still made (a replay its key deduplicated, once). */
  unchanged?: boolean;
  error?: string;
}

/** The guard as the scorecard switches it on: the fence for every tool, idempotency keys for every host. */
export const GUARD_ENV: Record<string, string> = { AFTERSTOP_GUARD_FENCE: 'true', AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS: '*' };

export interface Scorecard {
  date: string;
  node: string;
  versions: Record<string, string>;
  cells: ScoreCell[];
  durationMs: number;
}

/** The figures of a report that the card sets beside the ground truth. */
export function measured(report: LeakReport): NonNullable<ScoreCell['measured']> {
  const t = report.totals;
  const depths = (['0', '1', '2', '3', '4'] as const).filter((d) => t.cancel_depth[d] > 0).map(Number);
  return {
    cancelDepth: depths.length > 0 ? Math.min(...depths) : null,
    ackMs: t.cancel_ack_ms.max,
    settleMs: t.cancel_settle_ms.max,
    ghostCommits: t.ghost_commits,
    possibleGhostCommits: t.ghost_commits_possible,
    orphanToolCalls: t.orphan_tool_calls,
    replayDuplicates: t.replay_duplicates,
    replaysDeduplicated: t.replays_deduplicated,
    commitsPrevented: t.commits_prevented,
    modelCallsAfterStop: t.tokens_after_stop.calls_started_after_stop,
    outputTokensAfterStop: t.tokens_after_stop.output,
    nextTurnErrors: t.post_cancel_errors.orphan_tool_call_rejected + t.post_cancel_errors.other,
    steering: { injectMs: t.steering.inject_ms.max, violations: t.steering.violations, dropped: t.steering.dropped },
  };
}

/**
 * The ghost commits agree when every commit afterstop knows of landed after Stop and every one that
 * did is known or possible: known ≤ truth ≤ known + possible (a possible one may have landed either side).
 */
export const ghostsAgree = (m: Pick<NonNullable<ScoreCell['measured']>, 'ghostCommits' | 'possibleGhostCommits'>, truth: number): boolean => m.ghostCommits <= truth && truth <= m.ghostCommits + m.possibleGhostCommits;

/** The ghost-commit figure as the card shows it: `known`, `known (+n possible)`. */
export const ghostText = (m: Pick<NonNullable<ScoreCell['measured']>, 'ghostCommits' | 'possibleGhostCommits'>): string =>
  m.possibleGhostCommits > 0 ? `${m.ghostCommits} (+${m.possibleGhostCommits} possible)` : String(m.ghostCommits);

/** A piece of text, marked when it is a disagreement (Markdown's `**`, HTML's <strong>). */
export type Marked = { text: string; strong?: boolean };

/**
 * The "with guard" cell: the ghost commits with the guard on (against the ground truth when they differ)
 * and how many the fence prevented; the replays the service refused as a repeated key; for a cell without
 * a Stop, whether anything changed.
 */
export function guardedText(g: GuardedCell | undefined): Marked[] {
  if (g === undefined) return [{ text: '–' }];
  if (!g.ran || g.measured === undefined || g.truth === undefined) return [{ text: `did not run: ${g.error ?? 'unknown'}` }];
  const m = g.measured;
  const t = g.truth;
  const out: Marked[] = ghostsAgree(m, t.ghostCommits) ? [{ text: ghostText(m) }] : [{ text: ghostText(m), strong: true }, { text: ` / ${t.ghostCommits}` }];
  out.push({ text: ` ghost, ${m.commitsPrevented} prevented` });
  if (t.deduplicated > 0 || m.replaysDeduplicated > 0 || t.replays > 0) {
    out.push({ text: '; ' }, ...(m.replayDuplicates === t.replays ? [{ text: String(m.replayDuplicates) }] : [{ text: String(m.replayDuplicates), strong: true }, { text: ` / ${t.replays}` }]));
    out.push({ text: ` replays, ${t.deduplicated} refused as a repeated key` });
  }
  if (g.unchanged !== undefined) out.push({ text: '; ' }, g.unchanged ? { text: 'no Stop: unchanged' } : { text: 'no Stop: changed', strong: true });
  if (g.agrees === false) out.push({ text: '; ' }, { text: 'disagrees', strong: true });
  return out;
}

/**
 * The "service traced" cell: the ghost commits (against the ground truth when they differ), how many the service
 * confirmed and ruled out; marked when its spans did not join the tool's request, or joined and left a commit possible.
 */
export function tracedText(t: TracedCell | undefined): Marked[] {
  if (t === undefined) return [{ text: '–' }];
  if (!t.ran || t.measured === undefined || t.truth === undefined) return [{ text: `did not run: ${t.error ?? 'unknown'}` }];
  const m = t.measured;
  const out: Marked[] = ghostsAgree(m, t.truth.ghostCommits) ? [{ text: ghostText(m) }] : [{ text: ghostText(m), strong: true }, { text: ` / ${t.truth.ghostCommits}` }];
  out.push({ text: ` ghost, ${t.confirmed ?? 0} confirmed, ${t.ruledOut ?? 0} ruled out` });
  // The service's spans did not join the tool's request, or joined and left the commit possible: the witness fell short.
  if (t.joined !== true) out.push({ text: '; ' }, { text: 'service not joined', strong: true });
  else if (m.possibleGhostCommits > 0) out.push({ text: '; ' }, { text: 'not decided by the service', strong: true });
  if (t.agrees === false) out.push({ text: '; ' }, { text: 'disagrees', strong: true });
  return out;
}

/**
 * How far afterstop's tokens after Stop may be from the tokens the server sent after the app's Stop: 10%,
 * and at least 2 tokens. The server counts what it wrote; the client cannot count what was still in the
 * socket when the abort closed it, and on a loaded machine the abort comes a few ticks after the app's
 * Stop moment (at 10 ms a token, 2 tokens are 20 ms).
 */
const tokenTolerance = (sent: number): number => Math.max(2, 0.1 * sent);

/**
 * afterstop's tokens after Stop agree with the server's: within {@link tokenTolerance} of what it sent after the
 * app's Stop, or of that less what it sent before the app acted on the Stop (out of any trace's sight).
 */
export const tokensAgree = (measuredTokens: number, t: Pick<GroundTruth, 'outputTokensSent' | 'outputTokensOutOfSight'>): boolean => {
  const tolerance = tokenTolerance(t.outputTokensSent);
  return measuredTokens <= t.outputTokensSent + tolerance && measuredTokens >= t.outputTokensSent - (t.outputTokensOutOfSight ?? 0) - tolerance;
};

const agreement = (m: NonNullable<ScoreCell['measured']>, t: GroundTruth): boolean =>
  (t.nextTurnFailed === undefined || m.nextTurnErrors === (t.nextTurnFailed ? 1 : 0)) &&
  (t.orphans === undefined || m.orphanToolCalls === t.orphans) &&
  (t.steering === undefined || (m.steering.violations === t.steering.violations && m.steering.dropped === t.steering.dropped)) &&
  ghostsAgree(m, t.ghostCommits) &&
  m.replayDuplicates === t.replays &&
  m.replaysDeduplicated === t.deduplicated &&
  m.modelCallsAfterStop === t.modelCallsStarted &&
  tokensAgree(m.outputTokensAfterStop, t);

function versionOf(root: string, pkg: string): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

export interface ScorecardOptions {
  /** Hears of each cell as it starts. */
  progress?: (done: number, total: number, label: string) => void;
  /** Only the frameworks this keeps (default all). */
  only?: (framework: string) => boolean;
  /** Run each cell again with the guard on (default true). */
  guard?: boolean;
  /** Run each {@link TRACED_MOMENTS} cell again against the traced service (default true). */
  traced?: boolean;
}

/** Why an app run failed, in a line: the end of its stderr. */
const failure = (r: AppRun): string => r.stderr.trim().split('\n').slice(-3).join(' ');

/** The side effects a run made, by name, each once (a replay the guard's key deduplicated is the same effect). */
const committed = (r: AppRun): string[] => [...new Set(r.effects.filter((e) => e.outcome === 'committed').map((e) => e.name))].sort();

/** A cell again with the guard on, beside the run without it. */
async function guardedCell(file: string, scenario: string, options: RunAppOptions, plain: AppRun | undefined): Promise<GuardedCell> {
  try {
    const r = await runApp(file, scenario, { ...options, env: { ...options.env, ...GUARD_ENV } });
    if (r.code !== 0 || r.report === undefined) return { ran: false, error: failure(r) };
    const m = measured(r.report);
    const truth = truthAfterStop(r);
    const stopped = r.out['stopNs'] !== undefined;
    return {
      ran: true,
      measured: m,
      truth,
      agrees: agreement(m, truth),
      // Without a Stop the fence refuses nothing, and every side effect is still made (once, when its key deduplicated a replay).
      ...(!stopped && plain !== undefined ? { unchanged: m.commitsPrevented === 0 && JSON.stringify(committed(r)) === JSON.stringify(committed(plain)) } : {}),
    };
  } catch (error) {
    return { ran: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Whether the service's spans joined the app's: a server span of the service whose parent is a span of the app. */
async function joined(traces: string, service: string): Promise<boolean> {
  const { spans } = await readTraces(traces);
  const ours = new Set(spans.filter((s) => s.resource['service.name'] !== service).map((s) => s.spanId));
  return spans.some((s) => s.resource['service.name'] === service && s.kind === 2 && ours.has(s.parentSpanId));
}

/** A cell again, its effects through the traced service (EFFECTS_URL), whose spans a receiver writes beside the app's traces. */
async function tracedCell(root: string, file: string, scenario: string, options: RunAppOptions): Promise<TracedCell> {
  const shift = TRACED_SHIFT;
  fs.mkdirSync(options.traces, { recursive: true });
  const receiver = await startFileReceiver(path.join(options.traces, 'traced-service.jsonl'));
  let service: ServiceProcess | undefined;
  try {
    service = await startTracedService({ root, simUrl: options.sim.url, otlpUrl: receiver.url, shift, outbox: `${options.traces}.outbox` });
    const s = service;
    const r = await runApp(file, scenario, { ...options, env: { ...options.env, EFFECTS_URL: s.url }, settle: () => s.idle() });
    if (r.code !== 0 || r.report === undefined) return { ran: false, shift, error: failure(r) };
    const m = measured(r.report);
    const truth = truthAfterStop(r);
    const t = r.report.totals as unknown as Record<string, unknown>;
    const count = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
    const confirmed = count(t['ghost_commits_confirmed']);
    const ruledOut = count(t['ghost_commits_ruled_out']);
    return {
      ran: true,
      shift,
      measured: m,
      truth,
      agrees: agreement(m, truth),
      ...(confirmed !== undefined ? { confirmed } : {}),
      ...(ruledOut !== undefined ? { ruledOut } : {}),
      joined: await joined(r.traces, 'mail-service'),
    };
  } catch (error) {
    return { ran: false, shift, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await service?.stop();
    await receiver.close();
  }
}

/** Run every cell, one after another (the timing of a Stop is real time). */
export async function runScorecard(root: string, options: ScorecardOptions = {}): Promise<Scorecard> {
  const progress = options.progress ?? (() => {});
  const only = options.only ?? (() => true);
  const started = Date.now();
  const sim = await startSimulator({ tokenDelayMs: 10 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-scorecard-'));
  const jobs = FRAMEWORKS.filter((f) => only(f.framework)).flatMap((f) =>
    Object.entries(f.cells).map(([moment, cell]) => ({ framework: f.framework, moment: moment as Moment, cell: cell!, aliases: f.aliases, mcp: MCP_FRAMEWORKS.includes(f) })),
  );
  // Rows on other versions of their packages run copies of their apps beside those versions (inside the project).
  const versionsDir = path.join(root, '.cache', `scorecard-${process.pid}`);
  const appFile = (job: (typeof jobs)[number]): string => (job.aliases === undefined ? path.join(appsDir(root), job.cell.app) : versionedApp(root, versionsDir, job.cell.app, job.aliases));
  const cells: ScoreCell[] = [];
  try {
    for (const [i, job] of jobs.entries()) {
      progress(i, jobs.length, `${job.framework}: ${MOMENTS[job.moment]}`);
      const base = { framework: job.framework, moment: job.moment, scenario: job.cell.scenario, ...(job.cell.limit !== undefined ? { limit: job.cell.limit } : {}) };
      try {
        const run = { root, sim, traces: path.join(dir, String(i)), env: job.cell.env ?? {} };
        const r = await runApp(appFile(job), job.cell.scenario, run);
        const guarded = options.guard === false ? {} : { guarded: await guardedCell(appFile(job), job.cell.scenario, { ...run, traces: path.join(dir, `${i}-guard`) }, r.code === 0 ? r : undefined) };
        // The MCP rows' effects go out from their MCP server, which passes no trace context on when it is not instrumented.
        const tracedRun = options.traced !== false && TRACED_MOMENTS.includes(job.moment) && TRACED_APPS.has(job.cell.app) && !job.mcp;
        const traced = tracedRun ? { traced: await tracedCell(root, appFile(job), job.cell.scenario, { ...run, traces: path.join(dir, `${i}-traced`) }) } : {};
        if (r.code !== 0 || r.report === undefined) {
          cells.push({ ...base, ran: false, error: failure(r), ...guarded, ...traced });
          continue;
        }
        const m = measured(r.report);
        const truth = truthAfterStop(r);
        cells.push({ ...base, ran: true, measured: m, truth, agrees: agreement(m, truth), ...guarded, ...traced });
      } catch (error) {
        cells.push({ ...base, ran: false, error: error instanceof Error ? error.message : String(error) });
      }
    }
    progress(jobs.length, jobs.length, 'done');
  } finally {
    await sim.close();
    // AFTERSTOP_SCORECARD_KEEP: keep the cells' traces, to read them (the folder is named on stderr).
    if (process.env['AFTERSTOP_SCORECARD_KEEP'] === undefined) fs.rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`afterstop scorecard: the cells' traces are kept in ${dir}\n`);
    fs.rmSync(versionsDir, { recursive: true, force: true });
  }
  const packages = [...new Set(FRAMEWORKS.flatMap((f) => f.packages))].sort();
  // A package some rows run at another version: both named (e.g. `ai 6.0.325, 7.0.173`).
  const aliased = new Map<string, Set<string>>();
  for (const f of FRAMEWORKS) for (const [p, alias] of Object.entries(f.aliases ?? {})) aliased.set(p, (aliased.get(p) ?? new Set()).add(versionOf(root, alias)));
  const named = (p: string): string => [versionOf(root, p), ...(aliased.get(p) ?? [])].join(', ');
  return {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    versions: Object.fromEntries(packages.map((p) => [p, named(p)])),
    cells,
    durationMs: Date.now() - started,
  };
}
