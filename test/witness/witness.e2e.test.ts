import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { flattenRequest, type FlatSpan } from '../../analyzer/index.js';
import { startSimulator, type Simulator } from '../../analyzer/simulator/index.js';
import { tempDir } from '../helpers/child.js';
import { runCli } from '../helpers/cli.js';
import { fileLines, runWitness, WITNESS_FIXTURES, type WitnessRun } from '../helpers/witness.js';

/**
 * Issue 49, end to end: an agent (test/fixtures/witness/agent-app.mjs, afterstop's manual API and the openai
 * client, under `--import afterstop/register`) whose e-mail tool honours its signal, calling a service traced by
 * OpenTelemetry's own Node SDK (test/fixtures/witness/traced-service.mjs) in its own process, its clock shifted
 * by libfaketime; both export OTLP/HTTP to one receiver, whose file `afterstop leak-report --format json` reads.
 * Each case is checked against the simulator's ledger (the service forwards the effects it makes to it). The agent
 * first makes a warm-up call the service answers: the answered request that bounds the two clocks' offset.
 *
 * The figures: Figures.ghost_commits (known), ghost_commits_possible, ghost_commits_confirmed (known ghosts a
 * service witnessed), ghost_commits_ruled_out (what the client alone calls known or possible, which the witness
 * showed failed or before Stop); the findings `commit_witnessed_by_service` and `commit_inside_clock_bound`.
 */
const APP = path.join(WITNESS_FIXTURES, 'agent-app.mjs');

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ tokenDelayMs: 10 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The witness figures of a report (the contract's names), absent ones as undefined so that a missing figure fails. */
function figures(r: WitnessRun): Record<string, unknown> {
  const t = r.report.totals as unknown as Record<string, unknown>;
  return {
    ghost_commits: t['ghost_commits'],
    ghost_commits_possible: t['ghost_commits_possible'],
    ghost_commits_confirmed: t['ghost_commits_confirmed'],
    ghost_commits_ruled_out: t['ghost_commits_ruled_out'],
  };
}

const findingKinds = (r: WitnessRun): string[] => r.report.findings.map((f) => f.kind as string);

/** The commit items of the report's run timelines (`--timelines`) for a tool, with every field the JSON has. */
const commitItems = (r: WitnessRun, tool: string): Record<string, unknown>[] =>
  (r.report.timelines ?? []).flatMap((t) => t.items).filter((i) => i.kind === 'commit' && i.tool === tool) as unknown as Record<string, unknown>[];

/** The spans of the receiver's file: what the report read. */
const fileSpans = (r: WitnessRun): FlatSpan[] => fileLines(r.file).flatMap((body, i) => flattenRequest(body, r.file, i + 1));

/** The service's spans (its process: service.name mail-service). */
const serviceSpans = (r: WitnessRun): FlatSpan[] => fileSpans(r).filter((s) => s.resource['service.name'] === 'mail-service');

/** The run ran as the case needs: the app exited 0, pressed Stop, and the warm-up call was answered. */
function ranAsPlanned(r: WitnessRun): bigint {
  expect(r.code, r.stderr).toBe(0);
  expect(r.out.warmUp, 'the warm-up call was answered').toMatchObject({ name: 'log_event', committed: true });
  expect(r.out.stopNs, 'the app pressed Stop').toBeDefined();
  expect(r.report.totals.cancelled_runs).toBe(1);
  return BigInt(r.out.stopNs!);
}

/** The e-mail effects the ledger holds (the warm-up's log_event aside). */
const emails = (r: WitnessRun) => r.effects.filter((e) => e.name === 'send_email');

/** afterstop's figures are within the ground truth: known ≤ truth ≤ known + possible. */
function withinTruth(r: WitnessRun): void {
  expect(r.report.totals.ghost_commits, 'known ghost commits').toBeLessThanOrEqual(r.ghostsInTruth);
  expect(r.report.totals.ghost_commits + r.report.totals.ghost_commits_possible, 'known and possible').toBeGreaterThanOrEqual(r.ghostsInTruth);
}

describe('the tool’s request and the service’s spans', () => {
  it('join in one trace: the service’s server span is a child of afterstop’s request span (CLIENT, under the tool span), which the commit marker names', async () => {
    const r = await runWitness({ sim, dir, app: APP, env: { EFFECT: 'delayMs=600', STOP_MS: '200' }, shift: '-5s' });
    ranAsPlanned(r);
    const spans = fileSpans(r);
    const receipt = serviceSpans(r).find((s) => s.kind === 2 && s.attributes['url.path'] === '/effects/send_email')!;
    const request = spans.find((s) => s.spanId === receipt.parentSpanId);
    expect(request, 'the service’s parent span is in the agent’s traces').toBeDefined();
    expect(request).toMatchObject({ kind: 3, name: 'POST', traceId: receipt.traceId });
    expect(request!.resource['service.name']).toBe('support-agent');
    expect(request!.attributes).toMatchObject({ 'http.request.method': 'POST', 'afterstop.request.trace_context': 'injected' });
    const tool = spans.find((s) => s.spanId === request!.parentSpanId);
    expect(tool?.name).toBe('execute_tool send_email');
    const marker = spans.find((s) => s.name === 'afterstop.tool.commit' && s.attributes['afterstop.tool.commit.request_span_id'] === request!.spanId);
    expect(marker, 'the commit marker names the request span').toBeDefined();
    expect(marker!.attributes['afterstop.tool.commit.evidence']).toBe('request_sent');
    // The warm-up call: answered, its marker a `response` with its round trip.
    const warm = spans.find((s) => s.name === 'afterstop.tool.commit' && s.attributes['afterstop.tool.commit.evidence'] === 'response');
    expect(warm?.attributes['afterstop.tool.commit.round_trip_ms']).toBeGreaterThanOrEqual(0);
  });
});

const SHIFTS = [
  ['+5s', 5_000_000_000n],
  ['-5s', -5_000_000_000n],
] as const;

describe.each(SHIFTS)('the service’s clock %s off the agent’s', (shift, offsetNs) => {
  const run = (env: Record<string, string>, traced = true): Promise<WitnessRun> => runWitness({ sim, dir, app: APP, env, shift, traced });

  it('Stop during the send (received before Stop, written after it, the client cut): a known ghost, confirmed by the service', async () => {
    const r = await run({ EFFECT: 'delayMs=600', STOP_MS: '200' });
    const stop = ranAsPlanned(r);
    // The ground truth: the service had the request before Stop (its receipt, its clock shift taken off) and
    // committed the e-mail after it.
    const receipt = serviceSpans(r).find((s) => s.kind === 2 && s.attributes['url.path'] === '/effects/send_email');
    expect(receipt, 'the service’s server span of the e-mail').toBeDefined();
    expect(receipt!.startNs - offsetNs < stop).toBe(true);
    expect(emails(r).map((e) => e.outcome)).toEqual(['committed']);
    expect(r.ghostsInTruth).toBe(1);

    expect(figures(r)).toEqual({ ghost_commits: 1, ghost_commits_possible: 0, ghost_commits_confirmed: 1, ghost_commits_ruled_out: 0 });
    expect(findingKinds(r)).toContain('commit_witnessed_by_service');
    expect(findingKinds(r)).not.toContain('commit_inside_clock_bound');
    withinTruth(r);
    // The run's timeline: the commit is the service's work, after Stop (times from C), its clock's offset bounded
    // around the shift libfaketime gave it (δ = the service's clock minus the agent's lies within the bound).
    const [commit, ...more] = commitItems(r, 'send_email');
    expect(more).toEqual([]);
    expect(commit).toMatchObject({ ghost: 'known', witness: 'service', witness_verdict: 'happened' });
    expect(commit!['earliest_ms']).toBeGreaterThan(0);
    const bound = commit!['clock_bound_ms'] as { min: number | null; max: number | null };
    const shiftMs = Number(offsetNs / 1_000_000n);
    expect(bound.max, 'δ ≤ max').toBeGreaterThanOrEqual(shiftMs - 5);
    expect(bound.min, 'δ ≥ min (the warm-up call was answered)').not.toBeNull();
    expect(bound.min!, 'δ ≥ min').toBeLessThanOrEqual(shiftMs + 5);
    // The service's spans drawn under the tool call, on the agent's clock: its write after Stop.
    const timeline = (r.report.timelines ?? []).find((t) => t.items.some((i) => i.kind === 'commit' && i.tool === 'send_email'))!;
    const write = (timeline.items as unknown as Record<string, unknown>[]).find((i) => i['kind'] === 'service_span' && i['name'] === 'INSERT outbox');
    expect(write).toMatchObject({ work: true, service: 'mail-service' });
    expect(write!['start_ms']).toBeGreaterThan(0);
    // explain says who witnessed it.
    const explain = await runCli(['explain', timeline.trace_id, r.file, '--db', ':memory:', '--format', 'table', '--no-progress']);
    expect(explain.status, explain.stderr).toBe(0);
    expect(explain.stdout).toMatch(/confirmed by mail-service/);
    expect(explain.stdout).toContain('INSERT outbox');
  });

  it('Stop before the send (the tool still composing the mail): no request, no ghost', async () => {
    const r = await run({ PREPARE_MS: '500', STOP_MS: '100' });
    ranAsPlanned(r);
    expect(emails(r)).toEqual([]);
    expect(r.ghostsInTruth).toBe(0);
    // The service saw the warm-up only.
    expect(
      serviceSpans(r)
        .filter((s) => s.kind === 2)
        .map((s) => s.attributes['url.path']),
    ).toEqual(['/effects/log_event']);
    expect(figures(r)).toEqual({ ghost_commits: 0, ghost_commits_possible: 0, ghost_commits_confirmed: 0, ghost_commits_ruled_out: 0 });
    withinTruth(r);
  });

  it('a write that fails after the client left: no ghost, ruled out by the service’s failed work span', async () => {
    const r = await run({ EFFECT: 'delayMs=600&failOnDisconnect=1', STOP_MS: '200' });
    ranAsPlanned(r);
    const work = serviceSpans(r).filter((s) => s.name === 'INSERT outbox');
    // Two writes: the warm-up's (ended well), the e-mail's (failed).
    expect(work.map((s) => s.statusCode).sort()).toEqual([0, 2]);
    expect(emails(r)).toEqual([]);
    expect(r.ghostsInTruth).toBe(0);

    // The client alone: the body was sent, the answer lost after Stop (a possible ghost). The witness: it failed.
    expect(figures(r)).toEqual({ ghost_commits: 0, ghost_commits_possible: 0, ghost_commits_confirmed: 0, ghost_commits_ruled_out: 1 });
    withinTruth(r);
  });

  it('committed before Stop, its answer lost after Stop: no ghost, ruled out by the work span’s time through the clock bound', async () => {
    const r = await run({ EFFECT: 'delayMs=50&replyDelayMs=800', STOP_MS: '350' });
    const stop = ranAsPlanned(r);
    expect(emails(r).map((e) => e.outcome)).toEqual(['committed']);
    expect(emails(r)[0]!.committedNs! < stop, 'the ledger: committed before Stop').toBe(true);
    expect(r.ghostsInTruth).toBe(0);

    expect(figures(r)).toEqual({ ghost_commits: 0, ghost_commits_possible: 0, ghost_commits_confirmed: 0, ghost_commits_ruled_out: 1 });
    expect(findingKinds(r)).not.toContain('commit_inside_clock_bound');
    withinTruth(r);
  });

  it('an untraced service: a possible ghost, as without a witness', async () => {
    const r = await run({ EFFECT: 'delayMs=600', STOP_MS: '200' }, false);
    ranAsPlanned(r);
    expect(serviceSpans(r)).toEqual([]);
    expect(emails(r).map((e) => e.outcome)).toEqual(['committed']);
    expect(r.ghostsInTruth).toBe(1);

    expect(figures(r)).toEqual({ ghost_commits: 0, ghost_commits_possible: 1, ghost_commits_confirmed: 0, ghost_commits_ruled_out: 0 });
    expect(findingKinds(r)).not.toContain('commit_witnessed_by_service');
    withinTruth(r);
  });
});
