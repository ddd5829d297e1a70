import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addBudgetOptions, brokenBudgets, budgetStatus } from '../../cli/budgets.js';
import type { LeakReport } from '../../index.js';
import { judgeFigures } from '../../render/attention.js';

const report = (totals: Record<string, unknown>) =>
  ({
    totals: {
      ghost_commits: 0,
      ghost_commits_possible: 0,
      ghost_tax_usd: 0,
      orphan_tool_calls: 0,
      replay_duplicates: 0,
      unacknowledged_cancels: 0,
      tokens_after_stop: { input: 0, output: 0, unpriced_calls: 0, unpriced_tokens: { input: 0, output: 0 } },
      post_cancel_errors: { orphan_tool_call_rejected: 0, other: 0 },
      cancel_ack_ms: { count: 0, p50: null, p95: null, p99: null, max: null },
      ...totals,
    },
  }) as unknown as LeakReport;

describe('budgets', () => {
  it('parses every budget option as a non-negative number', () => {
    const command = addBudgetOptions(new Command('x').exitOverride());
    command.parse(['--max-ghost-tax-usd', '0.5', '--max-cancel-ack-p95-ms', '250'], { from: 'user' });
    expect(command.opts()).toEqual({ maxGhostTaxUsd: 0.5, maxCancelAckP95Ms: 250 });
    expect(() => addBudgetOptions(new Command('y').exitOverride().configureOutput({ writeErr: () => {} })).parse(['--max-orphans', '-1'], { from: 'user' })).toThrow();
  });

  it('breaks a budget only above it; a figure with no value breaks none; budgets not given are not checked', () => {
    const r = report({ ghost_commits: 2, ghost_tax_usd: 0.75, tokens_after_stop: { input: 10, output: 5, unpriced_calls: 0, unpriced_tokens: { input: 0, output: 0 } } });
    expect(brokenBudgets(r, { maxGhostCommits: 2, maxGhostTaxUsd: 0.5, maxTokensAfterStop: 15, maxCancelAckP95Ms: 0 })).toEqual([{ option: '--max-ghost-tax-usd', limit: 0.5, actual: 0.75 }]);
    expect(brokenBudgets(r, { maxGhostCommits: 1, maxTokensAfterStop: 14 }).map((b) => b.option)).toEqual(['--max-ghost-commits', '--max-tokens-after-stop']);
    expect(brokenBudgets(report({ cancel_ack_ms: { count: 3, p50: 10, p95: 900, p99: 900, max: 900 } }), { maxCancelAckP95Ms: 500 })).toEqual([{ option: '--max-cancel-ack-p95-ms', limit: 500, actual: 900 }]);
    expect(brokenBudgets(r, {})).toEqual([]);
  });

  it('the token and ghost-tax budgets are not passed while calls after Stop reported no usage (their tokens are not known, not 0), unless told they may be', () => {
    const r = report({ tokens_after_stop: { input: 10, output: 5, calls_without_usage: 2, unpriced_calls: 0, unpriced_tokens: { input: 0, output: 0 } } });
    const broken = brokenBudgets(r, { maxTokensAfterStop: 100, maxGhostTaxUsd: 1, maxOrphans: 0 });
    expect(broken.map((b) => b.option)).toEqual(['--max-ghost-tax-usd', '--max-tokens-after-stop']);
    for (const b of broken) expect(b.reason).toContain('the unreported usage: 2 model call(s) after Stop reported no usage');
    expect(brokenBudgets(r, { maxTokensAfterStop: 100, maxGhostTaxUsd: 1, tokenBudgetsAllowUnreported: true })).toEqual([]);
    const command = addBudgetOptions(new Command('x').exitOverride());
    command.parse(['--max-tokens-after-stop', '100', '--token-budgets-allow-unreported'], { from: 'user' });
    expect(command.opts()).toEqual({ maxTokensAfterStop: 100, tokenBudgetsAllowUnreported: true });
  });

  it('each budget names the figures it counts: --max-ghost-commits the possible ones too, unless told to exclude them', () => {
    const r = report({ ghost_commits: 1, ghost_commits_possible: 1 });
    const counting = budgetStatus(r, { maxGhostCommits: 0 });
    expect(counting.map((b) => b.figures)).toEqual([['ghost_commits', 'ghost_commits_possible']]);
    expect(judgeFigures(r, counting)('ghost_commits_possible').budgets.map((b) => b.budget)).toEqual(['max-ghost-commits']);
    const excluding = budgetStatus(r, { maxGhostCommits: 0, ghostBudgetExcludesPossible: true });
    expect(excluding.map((b) => b.figures)).toEqual([['ghost_commits']]);
    // Broken by the known commit alone: not marked beside the possible ones it did not count.
    expect(judgeFigures(r, excluding)('ghost_commits_possible').budgets).toEqual([]);
    expect(judgeFigures(r, excluding)('ghost_commits').budgets.map((b) => b.exceeded)).toEqual([true]);
  });

  it('the ghost-tax budget is not passed while calls after Stop had no price, unless told it may be; other budgets are not touched', () => {
    const r = report({ ghost_tax_usd: 0.1, tokens_after_stop: { input: 1300, output: 100, unpriced_calls: 2, unpriced_tokens: { input: 1200, output: 100 } } });
    const [broken, ...rest] = brokenBudgets(r, { maxGhostTaxUsd: 1, maxTokensAfterStop: 5000 });
    expect(rest).toEqual([]);
    expect(broken).toMatchObject({ option: '--max-ghost-tax-usd', limit: 1, actual: 0.1 });
    expect(broken!.reason).toBe(
      'the unpriced spend: 2 model call(s) after Stop without a price (1200 input, 100 output tokens) are not in the ghost tax; price their models with --prices, or give --ghost-tax-budget-allows-unpriced',
    );
    expect(brokenBudgets(r, { maxGhostTaxUsd: 1, ghostTaxBudgetAllowsUnpriced: true })).toEqual([]);
    // The metric afterstop_budget_exceeded says the same.
    expect(budgetStatus(r, { maxGhostTaxUsd: 1 }).map((b) => [b.budget, b.exceeded])).toEqual([['max-ghost-tax-usd', true]]);
    expect(budgetStatus(r, { maxGhostTaxUsd: 1, ghostTaxBudgetAllowsUnpriced: true }).map((b) => [b.budget, b.exceeded])).toEqual([['max-ghost-tax-usd', false]]);
    expect(brokenBudgets(r, { maxGhostTaxUsd: 0.05, ghostTaxBudgetAllowsUnpriced: true })).toEqual([{ option: '--max-ghost-tax-usd', limit: 0.05, actual: 0.1 }]);
    const command = addBudgetOptions(new Command('x').exitOverride());
    command.parse(['--max-ghost-tax-usd', '1', '--ghost-tax-budget-allows-unpriced'], { from: 'user' });
    expect(command.opts()).toEqual({ maxGhostTaxUsd: 1, ghostTaxBudgetAllowsUnpriced: true });
  });

  it('the ghost-commit budget counts possible ghost commits too, unless told to count only the known ones', () => {
    const r = report({ ghost_commits: 1, ghost_commits_possible: 2 });
    expect(brokenBudgets(r, { maxGhostCommits: 2 })).toEqual([{ option: '--max-ghost-commits', limit: 2, actual: 3 }]);
    expect(brokenBudgets(r, { maxGhostCommits: 2, ghostBudgetExcludesPossible: true })).toEqual([]);
    expect(brokenBudgets(report({ ghost_commits_possible: 1 }), { maxGhostCommits: 0 }).map((b) => b.actual)).toEqual([1]);
    const command = addBudgetOptions(new Command('x').exitOverride());
    command.parse(['--max-ghost-commits', '0', '--ghost-budget-excludes-possible'], { from: 'user' });
    expect(command.opts()).toEqual({ maxGhostCommits: 0, ghostBudgetExcludesPossible: true });
  });
});
