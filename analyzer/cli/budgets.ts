import { type Command, Option } from 'commander';
import type { BudgetStatus } from '../metrics/metric-families.js';
import { BUDGET_FIGURES } from '../render/attention.js';
import type { LeakReport } from '../types.js';
import { nonNegativeNumber } from './options.js';

/**
 * Budgets for nightly jobs: a figure of the report's totals and the most it
 * may be. `leak-report` exits 1 when one is exceeded, after printing the
 * report, naming each broken budget on stderr.
 */
interface BudgetDefinition {
  /** The commander option and the key it parses into. */
  flag: string;
  key: string;
  description: string;
  figure: (report: LeakReport, options: Record<string, unknown>) => number | null;
  /**
   * Why the budget is not passed whatever the figure: spend the figure cannot hold (the ghost tax of calls
   * without a price), said on stderr; null when there is none.
   */
  unknown?: (report: LeakReport, options: Record<string, unknown>) => Unknown | null;
  /** Figures it counts besides its own (BUDGET_FIGURES): the possible ghost commits in --max-ghost-commits, unless excluded. */
  alsoCounts?: (options: Record<string, unknown>) => string[];
}

/** A part of a budget's figure that is not known: the words for the report, the sentence for stderr. */
interface Unknown {
  words: string[];
  text: string;
}

/** The ghost tax is not known to be within a budget while calls after Stop had no price, unless the user says it may be. */
const unpricedSpend = (r: LeakReport, o: Record<string, unknown>): Unknown | null => {
  const k = r.totals.tokens_after_stop;
  if (k.unpriced_calls === 0 || o['ghostTaxBudgetAllowsUnpriced'] === true) return null;
  return {
    words: ['model calls after Stop had no price'],
    text: `the unpriced spend: ${k.unpriced_calls} model call(s) after Stop without a price (${k.unpriced_tokens.input} input, ${k.unpriced_tokens.output} output tokens) are not in the ghost tax; price their models with --prices, or give --ghost-tax-budget-allows-unpriced`,
  };
};

/**
 * Tokens after Stop, and the ghost tax priced from them, are not known to be within a budget while model calls
 * after Stop reported no usage (their tokens are not known, not 0), unless the user says they may be.
 */
const unreportedUsage = (r: LeakReport, o: Record<string, unknown>): Unknown | null => {
  const n = r.totals.tokens_after_stop.calls_without_usage ?? 0;
  if (n === 0 || o['tokenBudgetsAllowUnreported'] === true) return null;
  return {
    words: ['model calls after Stop reported no usage'],
    text: `the unreported usage: ${n} model call(s) after Stop reported no usage, so their tokens are not in the figure; give --token-budgets-allow-unreported to judge on the tokens reported`,
  };
};
/** Every cause of a budget's figure not being known: their sentences joined for stderr, their words kept apart. */
const eitherReason =
  (...reasons: ((r: LeakReport, o: Record<string, unknown>) => Unknown | null)[]) =>
  (r: LeakReport, o: Record<string, unknown>): Unknown | null => {
    const found = reasons.map((reason) => reason(r, o)).filter((x): x is Unknown => x !== null);
    return found.length === 0 ? null : { words: found.flatMap((u) => u.words), text: found.map((u) => u.text).join('; and ') };
  };

const BUDGETS: BudgetDefinition[] = [
  {
    flag: '--max-ghost-commits <n>',
    key: 'maxGhostCommits',
    description: 'most ghost commits (side effects committed after Stop, and the possible ones: in flight at Stop, outcome not seen, unless --ghost-budget-excludes-possible)',
    figure: (r, o) => r.totals.ghost_commits + (o['ghostBudgetExcludesPossible'] === true ? 0 : r.totals.ghost_commits_possible),
    alsoCounts: (o) => (o['ghostBudgetExcludesPossible'] === true ? [] : ['ghost_commits_possible']),
  },
  {
    flag: '--max-ghost-tax-usd <usd>',
    key: 'maxGhostTaxUsd',
    description: 'most dollars billed after Stop (not passed while model calls after Stop had no price, unless --ghost-tax-budget-allows-unpriced, or reported no usage, unless --token-budgets-allow-unreported)',
    figure: (r) => r.totals.ghost_tax_usd,
    unknown: eitherReason(unpricedSpend, unreportedUsage),
  },
  {
    flag: '--max-tokens-after-stop <n>',
    key: 'maxTokensAfterStop',
    description: 'most tokens billed after Stop (input + output; not passed while model calls after Stop reported no usage, unless --token-budgets-allow-unreported)',
    figure: (r) => r.totals.tokens_after_stop.input + r.totals.tokens_after_stop.output,
    unknown: unreportedUsage,
  },
  { flag: '--max-orphans <n>', key: 'maxOrphans', description: 'most orphan tool calls', figure: (r) => r.totals.orphan_tool_calls },
  { flag: '--max-post-cancel-errors <n>', key: 'maxPostCancelErrors', description: 'most errors after a cancel', figure: (r) => r.totals.post_cancel_errors.orphan_tool_call_rejected + r.totals.post_cancel_errors.other },
  { flag: '--max-replays <n>', key: 'maxReplays', description: 'most replayed side effects', figure: (r) => r.totals.replay_duplicates },
  { flag: '--max-cancel-ack-p95-ms <ms>', key: 'maxCancelAckP95Ms', description: 'highest p95 of the cancel ack latency', figure: (r) => r.totals.cancel_ack_ms.p95 },
  { flag: '--max-unacknowledged <n>', key: 'maxUnacknowledged', description: 'most cancels never acknowledged', figure: (r) => r.totals.unacknowledged_cancels },
];

export interface BrokenBudget {
  option: string;
  limit: number;
  actual: number | null;
  /** Why it is not passed though the figure is within it (the unpriced spend). */
  reason?: string;
}

/** Add the budget options to a command. */
export function addBudgetOptions(command: Command): Command {
  for (const b of BUDGETS) command.addOption(new Option(b.flag, `budget: ${b.description}; exit 1 above it`).argParser(nonNegativeNumber));
  command.addOption(new Option('--ghost-budget-excludes-possible', '--max-ghost-commits counts only the commits known to have landed after Stop'));
  command.addOption(new Option('--ghost-tax-budget-allows-unpriced', '--max-ghost-tax-usd is passed on the priced spend alone, though model calls after Stop had no price'));
  command.addOption(new Option('--token-budgets-allow-unreported', '--max-tokens-after-stop and --max-ghost-tax-usd are judged on the tokens reported, though model calls after Stop reported no usage'));
  return command;
}

/** Every budget given in `options`, with the report's figure and whether it is exceeded (a figure with no value, like a p95 of nothing, breaks none). */
export function budgetStatus(report: LeakReport, options: Record<string, unknown>): BudgetStatus[] {
  const status: BudgetStatus[] = [];
  for (const b of BUDGETS) {
    const limit = options[b.key];
    if (typeof limit !== 'number') continue;
    const actual = b.figure(report, options);
    const unknown = b.unknown?.(report, options) ?? null;
    const budget = (b.flag.split(' ')[0] ?? b.flag).replace(/^--/, '');
    status.push({
      budget,
      limit,
      actual,
      exceeded: (actual !== null && actual > limit) || unknown !== null,
      ...(unknown !== null ? { reason: unknown.text, unknown: unknown.words } : {}),
      figures: [BUDGET_FIGURES[budget] ?? budget, ...(b.alsoCounts?.(options) ?? [])],
    });
  }
  return status;
}

/** The budgets given in `options` that the report exceeds, or does not pass for a figure it cannot know (the unpriced spend). */
export function brokenBudgets(report: LeakReport, options: Record<string, unknown>): BrokenBudget[] {
  return brokenOf(budgetStatus(report, options));
}

/** The budgets of a {@link budgetStatus} that are broken, as the command names them. */
export function brokenOf(status: readonly BudgetStatus[]): BrokenBudget[] {
  return status.filter((b) => b.exceeded).map((b) => ({ option: `--${b.budget}`, limit: b.limit, actual: b.actual, ...(b.reason !== undefined ? { reason: b.reason } : {}) }));
}
