import type { BudgetStatus } from '../metrics/metric-families.js';
import type { Figures, Finding, LeakReport } from '../types.js';
import { anyFigureNeedsAttention, budgetNotes, type FigureKey, judgeFigures } from './attention.js';
import { int, ms, usd } from './format.js';
import type { FindingGroup } from './remedies.js';

/**
 * What the human-readable formats (terminal, Markdown) show: the report's
 * figures picked and labelled, in order, each judged (attention.ts). Nothing is
 * computed here that SQL has not computed; sums of two figures are only for display.
 */
export interface SummaryLine {
  key: FigureKey;
  label: string;
  value: string;
  /** Needs attention: over a budget given, or not zero where zero is the healthy value. */
  attention: boolean;
  /** Zero where zero is healthy: listed by name alone. */
  zero: boolean;
  /** The budgets given for it, in words ('' for none). */
  budget: string;
}

/**
 * The ghost tax as it may be read: the dollars of the priced calls, and, when some calls after Stop had no
 * price, those calls and their tokens beside it (`$0.12 + 3 unpriced calls (1,234 tokens: 1,000 input, 234
 * output)`), never a plain "$0.00" over spend that was not priced.
 */
export function ghostTax(dollars: number, k: Pick<Figures['tokens_after_stop'], 'unpriced_calls' | 'unpriced_tokens'>): string {
  if (k.unpriced_calls === 0) return usd(dollars);
  const tokens = k.unpriced_tokens.input + k.unpriced_tokens.output;
  return `${usd(dollars)} + ${int(k.unpriced_calls)} unpriced call${k.unpriced_calls === 1 ? '' : 's'} (${int(tokens)} tokens: ${int(k.unpriced_tokens.input)} input, ${int(k.unpriced_tokens.output)} output)`;
}

/** The figures, in order, judged under the budgets given (their status as cli/budgets.ts judged them). */
export function headline(report: LeakReport, budgets: readonly BudgetStatus[] = []): SummaryLine[] {
  const t = report.totals;
  const judge = judgeFigures(report, budgets);
  const line = (key: FigureKey, label: string, value: string): SummaryLine => {
    const j = judge(key);
    return { key, label, value, attention: j.attention, zero: j.zero && !j.attention, budget: budgetNotes(j) };
  };
  const tokens = t.tokens_after_stop.input + t.tokens_after_stop.output;
  const postCancel = t.post_cancel_errors.orphan_tool_call_rejected + t.post_cancel_errors.other;
  const unknownTokens = t.tokens_after_stop.calls_without_usage > 0 ? ` (+${int(t.tokens_after_stop.calls_without_usage)} calls without usage)` : '';
  return [
    line('runs', 'Runs (cancelled)', `${int(t.runs)} (${int(t.cancelled_runs)})`),
    line('ghost_tax_usd', 'Ghost tax', ghostTax(t.ghost_tax_usd, t.tokens_after_stop)),
    line('tokens_after_stop', 'Tokens after Stop', `${int(tokens)}${unknownTokens}`),
    line('ghost_commits', 'Ghost commits', `${int(t.ghost_commits)} (${int(t.ghost_commits_alarming)} irreversible or unknown, ${int(t.ghost_commits_inferred)} inferred)`),
    line('ghost_commits_possible', 'Possible ghost commits', `${int(t.ghost_commits_possible)} (${int(t.ghost_commits_possible_alarming)} irreversible or unknown; in flight at Stop, outcome not seen)`),
    // The far side's witness (issue 49): shown once a service's spans decided a commit. (`?? 0`: an older report's JSON has none.)
    ...((t.ghost_commits_confirmed ?? 0) + (t.ghost_commits_ruled_out ?? 0) > 0
      ? [line('ghost_commits_witnessed', 'Witnessed by the service', `${int(t.ghost_commits_confirmed ?? 0)} confirmed, ${int(t.ghost_commits_ruled_out ?? 0)} ruled out (its own spans, beyond the clock bound)`)]
      : []),
    line('orphan_tool_calls', 'Orphan tool calls', int(t.orphan_tool_calls)),
    line('post_cancel_errors', 'Post-cancel errors', int(postCancel)),
    line('replay_duplicates', 'Replay duplicates', t.replays_deduplicated > 0 ? `${int(t.replay_duplicates)} (+${int(t.replays_deduplicated)} deduplicated by key)` : int(t.replay_duplicates)),
    line('cancel_ack_p95_ms', 'Cancel ack p50 / p95', `${ms(t.cancel_ack_ms.p50)} / ${ms(t.cancel_ack_ms.p95)}`),
    line('unacknowledged_cancels', 'Unacknowledged cancels', int(t.unacknowledged_cancels)),
    line('orphan_processes', 'Orphan processes', int(t.orphan_processes)),
    line('unended_runs', 'Unended runs', int(t.unended_runs)),
    line('cleanup_errors', 'Cleanup errors', int(t.cleanup_errors)),
    // Steering (not a Stop's figure): shown once it went wrong.
    ...(t.steering.dropped > 0 ? [line('steering_dropped', 'Steering messages dropped', int(t.steering.dropped))] : []),
    ...(t.steering.violations > 0 ? [line('steering_violations', 'Steering violations', int(t.steering.violations))] : []),
    // The guard's work (afterstop addition): shown once it did any.
    ...(t.commits_prevented + t.replays_deduplicated + t.deadline_cancels > 0
      ? [
          line(
            'guard',
            'Guard',
            `${int(t.commits_prevented)} commits prevented (${int(t.commits_prevented_alarming)} irreversible or unknown), ${int(t.replays_deduplicated)} replays deduplicated, ${int(t.deadline_cancels)} deadline cancels`,
          ),
        ]
      : []),
  ];
}

/**
 * The report's figures as lower bounds, in words, when runs ran beside frameworks afterstop does not
 * instrument (naming them, each through `name`: the format's escaping of trace content); undefined otherwise.
 * Every human-readable format puts it first.
 */
export function lowerBound(report: LeakReport, name: (text: string) => string = (text) => text): string | undefined {
  const u = report.totals.uninstrumented;
  if (u.runs === 0) return undefined;
  const they = u.packages.length === 1 ? 'it' : 'they';
  return `Lower bounds: ${int(u.runs)} of ${int(report.totals.runs)} run(s) ran beside ${u.packages.map(name).join(', ')}, which afterstop does not instrument: what ${they} did after Stop (runs, tool calls, side effects, model calls) may be missing, so each figure is at least what happened.`;
}

/** The cancel-depth scorecard: one row per framework, counts of runs at depth 0..4. */
export function scorecard(report: LeakReport): string[][] {
  return report.totals.cancel_depth_by_framework.map((f) => [f.framework ?? '(unknown)', int(f.cancelled_runs), ...(['0', '1', '2', '3', '4'] as const).map((d) => int(f.cancel_depth[d]))]);
}
export const SCORECARD_HEADER = ['framework', 'cancelled', 'depth 0', '1', '2', '3', '4'];

export function ghostCommitsByTool(report: LeakReport): string[][] {
  return report.totals.ghost_commits_by_tool.map((g) => [g.tool, g.effect, int(g.ghost_commits), int(g.ghost_commits_possible), int(g.ghost_commits_inferred), int(g.commits_prevented)]);
}
export const GHOST_COMMITS_HEADER = ['tool', 'effect', 'ghost commits', 'possible', 'inferred', 'prevented'];

/** A finding's row under its kind (findingGroups): `#` is its number in the report, which `afterstop explain N` takes. */
export const FINDINGS_HEADER = ['#', 'severity', 'time', 'tool', 'trace id', 'detail'];
export const findingRow = (number: number, f: Finding): string[] => [String(number), String(f.severity), f.time, f.tool ?? '', f.trace_id, f.detail];

/** The findings section's title: how many are listed of how many, and of how many kinds. */
export function findingsTitle(report: LeakReport, groups: readonly FindingGroup[]): string {
  const listed = groups.reduce((n, g) => n + g.rows.length, 0);
  return `Findings by kind (${int(listed)} of ${int(report.findings.length)} listed, ${int(groups.length)} kind${groups.length === 1 ? '' : 's'}; \`afterstop explain N\` draws finding N)`;
}

/**
 * The headline's figures as every text format lays them out: those that need attention, the others, and those at
 * zero where zero is healthy, named in one line (undefined when there is none).
 */
export function figureParts(lines: readonly SummaryLine[]): { attention: SummaryLine[]; other: SummaryLine[]; zero: string | undefined } {
  const zero = lines.filter((l) => l.zero).map((l) => `${l.label.charAt(0).toLowerCase()}${l.label.slice(1)}`);
  return { attention: lines.filter((l) => l.attention), other: lines.filter((l) => !l.attention && !l.zero), zero: zero.length === 0 ? undefined : `At zero: ${zero.join(', ')}` };
}

/**
 * What the report says when it lists no finding: an all-clear only where runs were read and some were
 * stopped; otherwise why there is nothing (nothing read is not nothing found).
 */
export function noFindings(report: LeakReport): string {
  if (report.evidence.status !== 'runs') return 'No findings, because there was nothing to judge: this is not an all-clear.';
  if (report.totals.cancelled_runs === 0) return `No run was stopped in this window (${int(report.totals.runs)} run(s)): nothing to measure after Stop.`;
  // A figure above zero with no finding listed: the list was cut (leak-report --findings), not empty of leaks.
  if (anyFigureNeedsAttention(report)) return 'No finding is listed here (leak-report --findings sets how many are): the figures above say what was found.';
  return 'No findings: nothing kept running after Stop in this window.';
}

/** Where the figures came from, in one line. */
export function provenance(report: LeakReport): string {
  const w = report.window;
  const window = w.from === null && w.to === null ? 'all time' : `${w.from ?? '…'} to ${w.to ?? '…'}`;
  const i = report.input;
  return `window: ${window} · ${int(i.files)} file(s), ${int(i.spans_added)} new span(s) (${int(i.spans_in_store)} in the store), ${int(i.skipped_count)} line(s) skipped · prices ${report.prices.source}${report.prices.as_of ? ` as of ${report.prices.as_of}` : ''}`;
}
