import type { BudgetStatus } from '../metrics/metric-families.js';
import type { LeakReport } from '../types.js';
import { int, ms, usd } from './format.js';

/**
 * Which figures need attention, for every human-readable format: a figure that breaks a budget given to
 * `leak-report`, or is not zero where zero is the healthy value. Nothing here computes a figure: it reads
 * the report's, and the budgets' status as the CLI judged them (cli/budgets.ts).
 */

/** The figures the formats show, by the key the HTML report's `data-figure` carries. */
export type FigureKey =
  | 'runs'
  | 'cancelled_runs'
  | 'ghost_tax_usd'
  | 'tokens_after_stop'
  | 'ghost_commits'
  | 'ghost_commits_possible'
  | 'orphan_tool_calls'
  | 'post_cancel_errors'
  | 'replay_duplicates'
  | 'commits_prevented'
  | 'cancel_ack_p50_ms'
  | 'cancel_ack_p95_ms'
  | 'unacknowledged_cancels'
  | 'orphan_processes'
  | 'unended_runs'
  | 'cleanup_errors'
  | 'steering_dropped'
  | 'steering_violations'
  | 'ghost_commits_witnessed'
  | 'guard';

/** Each budget of `leak-report` (its option without dashes) and the figure it limits; a test holds it to cli/budgets.ts. */
export const BUDGET_FIGURES: Readonly<Record<string, FigureKey>> = {
  'max-ghost-commits': 'ghost_commits',
  'max-ghost-tax-usd': 'ghost_tax_usd',
  'max-tokens-after-stop': 'tokens_after_stop',
  'max-orphans': 'orphan_tool_calls',
  'max-post-cancel-errors': 'post_cancel_errors',
  'max-replays': 'replay_duplicates',
  'max-cancel-ack-p95-ms': 'cancel_ack_p95_ms',
  'max-unacknowledged': 'unacknowledged_cancels',
};

/** A cancel acknowledged later than this at p95 needs attention without a budget (the default cancel-depth budget). */
const ACK_P95_HEALTHY_MS = 1000;

/**
 * The figures whose healthy value is zero, and the value that must be zero; the ghost tax and the tokens are
 * zero only when every call after Stop was priced and reported its usage (an unpriced call is not $0).
 */
const ZERO_IS_HEALTHY: Partial<Record<FigureKey, (t: LeakReport['totals']) => number>> = {
  ghost_tax_usd: (t) => t.ghost_tax_usd + t.tokens_after_stop.unpriced_calls + t.tokens_after_stop.calls_without_usage,
  tokens_after_stop: (t) => t.tokens_after_stop.input + t.tokens_after_stop.output + t.tokens_after_stop.calls_without_usage,
  ghost_commits: (t) => t.ghost_commits + t.ghost_commits_inferred,
  ghost_commits_possible: (t) => t.ghost_commits_possible,
  orphan_tool_calls: (t) => t.orphan_tool_calls,
  post_cancel_errors: (t) => t.post_cancel_errors.orphan_tool_call_rejected + t.post_cancel_errors.other,
  replay_duplicates: (t) => t.replay_duplicates,
  unacknowledged_cancels: (t) => t.unacknowledged_cancels,
  orphan_processes: (t) => t.orphan_processes,
  unended_runs: (t) => t.unended_runs,
  cleanup_errors: (t) => t.cleanup_errors,
  steering_dropped: (t) => t.steering.dropped,
  steering_violations: (t) => t.steering.violations,
};

export interface FigureJudgement {
  /** Needs attention: over a budget, or not zero where zero is healthy (the cancel ack p95 above a second). */
  attention: boolean;
  /** Zero where zero is the healthy value (and known to be: nothing unpriced, no call without usage). */
  zero: boolean;
  /** The budgets given for this figure: each says its limit and whether it was passed. */
  budgets: BudgetStatus[];
}

/** The judgement of every figure of a report, under the budgets given (none: only the healthy values). */
export function judgeFigures(report: LeakReport, budgets: readonly BudgetStatus[] = []): (key: FigureKey) => FigureJudgement {
  const t = report.totals;
  return (key) => {
    // A budget beside its own figure always; beside another figure it counts, when it broke and that figure is not zero.
    const mine = budgets.filter((b) => b.figures[0] === key || (b.figures.includes(key) && b.exceeded && (ZERO_IS_HEALTHY[key]?.(t) ?? 0) > 0));
    const zeroValue = ZERO_IS_HEALTHY[key]?.(t);
    const unhealthy = zeroValue !== undefined ? zeroValue > 0 : key === 'cancel_ack_p95_ms' && (t.cancel_ack_ms.p95 ?? 0) > ACK_P95_HEALTHY_MS;
    return { attention: unhealthy || mine.some((b) => b.exceeded), zero: zeroValue === 0, budgets: mine };
  };
}

/** Whether any figure needs attention without a budget (not zero where zero is healthy, or a slow acknowledgement). */
export function anyFigureNeedsAttention(report: LeakReport): boolean {
  const judge = judgeFigures(report);
  return [...(Object.keys(ZERO_IS_HEALTHY) as FigureKey[]), 'cancel_ack_p95_ms' as const].some((key) => judge(key).attention);
}

/** A budget's value as its figure is written. */
const budgetValue = (b: Pick<BudgetStatus, 'budget'>, value: number): string => (b.budget === 'max-ghost-tax-usd' ? usd(value) : b.budget === 'max-cancel-ack-p95-ms' ? ms(value) : int(value));

/** A budget beside its figure: `over budget --max-ghost-commits 0`, `budget --max-ghost-tax-usd 5 not passed: model calls after Stop had no price`, `within budget --max-orphans 2`. */
function budgetNote(b: BudgetStatus): string {
  const option = `--${b.budget} ${b.limit}`;
  if (!b.exceeded) return `within budget ${option}`;
  if (b.actual !== null && b.actual > b.limit) return `over budget ${option}`;
  return `budget ${option} not passed: ${unknownPart(b)}`;
}

/** What of a budget's figure is not known, in words (cli/budgets.ts names each cause). */
const unknownPart = (b: BudgetStatus): string => (b.unknown !== undefined && b.unknown.length > 0 ? b.unknown.join(', and ') : 'a figure it judges is not known');

/** A broken budget, with the figure that broke it: `--max-ghost-commits 0 (the report has 1)`. */
export function budgetBreach(b: BudgetStatus): string {
  const option = `--${b.budget} ${b.limit}`;
  if (b.actual !== null && b.actual > b.limit) return `${option} (the report has ${budgetValue(b, b.actual)})`;
  return `${option} (not passed: ${unknownPart(b)})`;
}

/** The budgets' notes of one figure, in one phrase ('' without budgets). */
export function budgetNotes(j: FigureJudgement): string {
  return j.budgets.map(budgetNote).join('; ');
}
