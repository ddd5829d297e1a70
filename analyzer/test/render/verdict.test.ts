import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyze, type LeakReport } from '../../index.js';
import { budgetStatus } from '../../cli/budgets.js';
import { REMEDIES } from '../../render/remedies.js';
import { verdict, withVerdict } from '../../render/verdict.js';
import { traces } from '../../../test/helpers/trace-builder.js';

/**
 * The verdict, over real reports: every golden trace, and the cases where certainty is easy to overstate —
 * nothing read, no run stopped, a possible ghost commit, an unpriced call, a run beside a framework afterstop
 * does not instrument, a call after Stop without usage — and budgets named.
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
const goldenReport = (file: string): Promise<LeakReport> => analyze({ inputs: [path.join(golden, file)], db: ':memory:', pricesFile: path.join(golden, 'prices.json') });

/** A stopped run that acknowledged its Stop and left nothing behind, with `more` done to it. */
async function stopped(more: (r: ReturnType<ReturnType<typeof traces>['run']>) => void = () => {}, attrs: Record<string, string> = {}): Promise<LeakReport> {
  const t = traces();
  const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled', attrs });
  r.cancelRequest(100);
  r.ack(120);
  more(r);
  return analyze({ inputs: [t.write()], db: ':memory:' });
}

const ALL_CLEAR = /all clear/i;

describe('the verdict over the golden traces', () => {
  const cases: [string, LeakReport['evidence']['status'], string, RegExp[]][] = [
    ['g1-stream-in-flight.jsonl', 'runs', 'attention', [/^30 tokens were billed after Stop \(\$0\.0003\)\.$/]],
    [
      'g2-ghost-email.jsonl',
      'runs',
      'attention',
      [/^1 side effect \(send_email, irreversible\) was committed after the user pressed Stop, 1 turn failed because Stop left a tool call unanswered, and 1 tool call lost its result to Stop\.$/],
    ],
    ['g3-repaired.jsonl', 'runs', 'clear', [/^All clear: in the 1 stopped run \(of 2 runs\), nothing kept running after Stop/]],
    ['g4-loop-continues.jsonl', 'runs', 'attention', [/1,500 tokens were billed after Stop \(\$0\.0060\)/, /1 Stop was never acknowledged/]],
    ['g5-replay.jsonl', 'runs', 'attention', [/^1 side effect was committed a second time when a conversation was replayed\.$/]],
    ['g6-steering.jsonl', 'runs', 'attention', [/1 steering message was never delivered/, /1 steering message was injected inside a tool batch/]],
  ];
  it('covers every golden trace', () => {
    expect(cases.map(([f]) => f)).toEqual(
      fs
        .readdirSync(golden)
        .filter((f) => f.endsWith('.jsonl'))
        .sort(),
    );
  });
  for (const [file, evidence, status, says] of cases) {
    it(`${file}: ${status}`, async () => {
      const report = await goldenReport(file);
      expect(report.evidence.status).toBe(evidence);
      const v = verdict(report);
      expect(v.status).toBe(status);
      for (const s of says) expect(v.sentence).toMatch(s);
      if (status !== 'clear') expect(v.sentence).not.toMatch(ALL_CLEAR);
    });
  }

  it('all of them together: the gravest first, the rest counted, a broken budget named with its figure', async () => {
    const report = await analyze({ inputs: [`${golden}*.jsonl`], db: ':memory:', pricesFile: path.join(golden, 'prices.json') });
    const v = verdict(report, budgetStatus(report, { maxGhostCommits: 0, maxOrphans: 5 }));
    expect(v.status).toBe('attention');
    expect(v.sentence).toMatch(/^1 side effect \(send_email, irreversible\) was committed after the user pressed Stop, 1 side effect was committed a second time/);
    expect(v.sentence).toMatch(/and \d+ more problems below\./);
    expect(v.sentence).toMatch(/Budget broken: --max-ghost-commits 0 \(the report has 1\)\.$/);
    expect(verdict(report, budgetStatus(report, { maxGhostCommits: 5 })).sentence).toMatch(/Within the 1 budget given\.$/);
  });
});

describe('never more certain than the evidence', () => {
  it('nothing read: the evidence note, nothing to judge, no all-clear', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-verdict-'));
    try {
      const report = await analyze({ inputs: [dir], db: ':memory:' });
      const v = verdict(report, budgetStatus(report, { maxGhostCommits: 0 }));
      expect(v).toEqual({ status: 'nothing_to_judge', sentence: report.evidence.note });
      expect(v.sentence).toMatch(/^Nothing read: .* No figure of this report is an all-clear\.$/);
      expect(v.sentence).not.toMatch(/within/i);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs, none stopped: nothing to judge after Stop, not an all-clear', async () => {
    const t = traces();
    t.run({ startMs: 0, endMs: 100, outcome: 'completed' });
    const v = verdict(await analyze({ inputs: [t.write()], db: ':memory:' }));
    expect(v).toEqual({ status: 'nothing_to_judge', sentence: 'No run was stopped in this window (1 run): nothing to judge after Stop, so this report is not an all-clear.' });
  });

  it('a stopped run that left nothing: all clear', async () => {
    const v = verdict(await stopped());
    expect(v.status).toBe('clear');
    expect(v.sentence).toMatch(/^All clear: in the 1 stopped run \(of 1 run\)/);
  });

  it('a possible ghost commit: could not be ruled out, never all clear', async () => {
    // Its body reached the service before Stop, its answer was lost to the abort just after.
    const report = await stopped((r) => {
      r.tool({ name: 'charge_card', callId: 'c', startMs: 50, endMs: 105, effect: 'irreversible', result: 'delivered' });
      r.commit({ callId: 'c', atMs: 101, evidence: 'request_sent', unansweredMs: 41 });
    });
    expect(report.totals.ghost_commits_possible).toBe(1);
    expect(report.findings.map((f) => f.kind)).toEqual(['possible_ghost_commit']);
    const v = verdict(report);
    expect(v.status).toBe('possible');
    expect(v.sentence).toMatch(/^No side effect is known to have been committed after Stop, but 1 side effect in flight at Stop \(charge_card, irreversible\) could not be ruled out/);
    expect(v.sentence).not.toMatch(ALL_CLEAR);
    // Under a ghost-commit budget (which counts the possible ones), it is a broken budget.
    expect(verdict(report, budgetStatus(report, { maxGhostCommits: 0 })).status).toBe('attention');
    // With a known problem beside it, it is said after the problem, still as not ruled out.
    const both = await stopped((r) => r.tool({ name: 'charge_card', callId: 'c', startMs: 50, effect: 'irreversible' }));
    expect(verdict(both).sentence).toBe('1 tool call lost its result to Stop. 1 side effect in flight at Stop (charge_card, irreversible) could not be ruled out: it may have been committed after it.');
  });

  it('an unpriced call after Stop: its tokens and that it has no price, never a plain dollar figure', async () => {
    const report = await stopped((r) => r.model({ startMs: 50, endMs: 300, model: 'my-finetune-7b', input: 1200, output: 100, afterCancel: 100 }));
    expect(report.totals.tokens_after_stop.unpriced_calls).toBe(1);
    const v = verdict(report);
    expect(v.status).toBe('attention');
    expect(v.sentence).toMatch(/tokens? (was|were) billed after Stop \(\$0\.0000 priced, and 1 call with no price not in it\)/);
    expect(v.sentence).not.toMatch(/\(\$0\.0000\)/);
    const budgets = budgetStatus(report, { maxGhostTaxUsd: 5 });
    expect(verdict(report, budgets).sentence).toMatch(/Budget broken: --max-ghost-tax-usd 5 \(not passed: model calls after Stop had no price\)\.$/);
  });

  it('a call after Stop that reported no usage: its tokens are not known, not zero', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(120);
    r.model({ startMs: 50, endMs: 300, model: 'gpt-4o', status: { code: 'error', message: 'AbortError' }, attrs: { 'error.type': 'AbortError' } });
    const report = await analyze({ inputs: [t.write()], db: ':memory:' });
    expect(report.totals.tokens_after_stop.calls_without_usage).toBeGreaterThan(0);
    const v = verdict(report);
    expect(v.status).toBe('attention');
    expect(v.sentence).toMatch(/model calls? ran past Stop without reporting usage \(tokens not known\)/);
    // A token budget is not passed on tokens that were never reported: the verdict names it, never "within".
    const budgets = budgetStatus(report, { maxTokensAfterStop: 1000 });
    expect(verdict(report, budgets).sentence).toMatch(/Budget broken: --max-tokens-after-stop 1000 \(not passed: model calls after Stop reported no usage\)\.$/);
    expect(verdict(report, budgets).sentence).not.toMatch(/Within the/);
  });

  it('beside a framework afterstop does not instrument: a lower bound, not an all-clear; with leaks, the figures are lower bounds', async () => {
    const quiet = await stopped(() => {}, { 'afterstop.run.uninstrumented': '@google/adk' });
    expect(quiet.totals.uninstrumented).toEqual({ runs: 1, packages: ['@google/adk'] });
    const v = verdict(quiet);
    expect(v.status).toBe('lower_bound');
    expect(v.sentence).toMatch(/^Nothing was seen to keep running after Stop in the 1 stopped run, but 1 of 1 run ran beside @google\/adk, which afterstop does not instrument: a lower bound, not an all-clear\.$/);
    const leaky = await stopped(
      (r) => {
        r.tool({ name: 'send_email', callId: 'c', startMs: 50, endMs: 300, effect: 'irreversible' });
        r.commit({ callId: 'c', atMs: 200 });
      },
      { 'afterstop.run.uninstrumented': '@google/adk' },
    );
    const w = verdict(leaky);
    expect(w.status).toBe('attention');
    expect(w.sentence).toMatch(/^1 side effect \(send_email, irreversible\) was committed after the user pressed Stop/);
    expect(w.sentence).toContain('These figures are lower bounds: 1 of 1 run ran beside @google/adk, which afterstop does not instrument.');
  });

  it('a stopped run that is one model call (a model SDK used directly): its tools were out of sight, so no all-clear', async () => {
    const stoppedIn = async (...frameworks: string[]): Promise<LeakReport> => {
      const t = traces();
      for (const framework of frameworks) {
        const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled', framework });
        r.cancelRequest(100);
        r.ack(120);
      }
      return analyze({ inputs: [t.write()], db: ':memory:' });
    };
    const v = verdict(await stoppedIn('openai-sdk'));
    expect(v.status).toBe('lower_bound');
    expect(v.sentence).not.toMatch(ALL_CLEAR);
    expect(v.sentence).toContain("The stopped run was a model call made with openai-sdk outside any afterstop run: afterstop saw neither the agent's loop nor its tools there");
    // Beside a run afterstop saw whole, the note counts the call-only ones among the stopped.
    const mixed = verdict(await stoppedIn('anthropic-sdk', 'manual'));
    expect(mixed.status).toBe('lower_bound');
    expect(mixed.sentence).toContain('1 of the 2 stopped runs was a model call made with anthropic-sdk outside any afterstop run');
    // A run afterstop saw whole, alone, is the all-clear.
    expect(verdict(await stoppedIn('manual')).status).toBe('clear');
  });

  it('a slow acknowledgement over its budget is named, though under a second', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(700);
    const report = await analyze({ inputs: [t.write()], db: ':memory:' });
    expect(verdict(report).status).toBe('clear');
    const v = verdict(report, budgetStatus(report, { maxCancelAckP95Ms: 500 }));
    expect(v.status).toBe('attention');
    expect(v.sentence).toMatch(/^Stop took 600 ms to be acknowledged \(p95\)\. Budget broken: --max-cancel-ack-p95-ms 500 \(the report has 600 ms\)\.$/);
  });
});

describe('the JSON report', () => {
  it("adds the verdict after the evidence, with the remedies of its findings' kinds, and changes no figure", async () => {
    const report = await goldenReport('g2-ghost-email.jsonl');
    const json = JSON.parse(JSON.stringify(withVerdict(report, budgetStatus(report, { maxGhostCommits: 0 })))) as LeakReport;
    expect(Object.keys(json).slice(0, 4)).toEqual(['schema', 'window', 'evidence', 'verdict']);
    const { verdict: v, ...figures } = json;
    expect(figures).toEqual(JSON.parse(JSON.stringify(report)));
    expect(v?.status).toBe('attention');
    expect(v?.sentence).toMatch(/Budget broken: --max-ghost-commits 0 \(the report has 1\)\.$/);
    expect(v?.remedies).toEqual(Object.fromEntries([...new Set(report.findings.map((f) => f.kind))].map((k) => [k, REMEDIES[k]])));
  });
});
