import type { Figures, Finding, LeakReport } from '../types.js';
import { int, ms, usd } from './format.js';

/**
 * What the human-readable formats (terminal, Markdown) show: the report's
 * figures picked and labelled, in order. Nothing is computed here that SQL
 * has not computed; sums of two figures are only for display.
 */
export interface SummaryLine {
  label: string;
  value: string;
  /** Worth a look: the figure is not zero where zero is the healthy value. */
  bad: boolean;
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

export function headline(report: LeakReport): SummaryLine[] {
  const t = report.totals;
  const tokens = t.tokens_after_stop.input + t.tokens_after_stop.output;
  const postCancel = t.post_cancel_errors.orphan_tool_call_rejected + t.post_cancel_errors.other;
  const unknownTokens = t.tokens_after_stop.calls_without_usage > 0 ? ` (+${int(t.tokens_after_stop.calls_without_usage)} calls without usage)` : '';
  return [
    { label: 'Runs (cancelled)', value: `${int(t.runs)} (${int(t.cancelled_runs)})`, bad: false },
    { label: 'Ghost tax', value: ghostTax(t.ghost_tax_usd, t.tokens_after_stop), bad: t.ghost_tax_usd > 0 || t.tokens_after_stop.unpriced_calls > 0 },
    { label: 'Tokens after Stop', value: `${int(tokens)}${unknownTokens}`, bad: tokens > 0 || t.tokens_after_stop.calls_without_usage > 0 },
    { label: 'Ghost commits', value: `${int(t.ghost_commits)} (${int(t.ghost_commits_alarming)} irreversible or unknown, ${int(t.ghost_commits_inferred)} inferred)`, bad: t.ghost_commits + t.ghost_commits_inferred > 0 },
    {
      label: 'Possible ghost commits',
      value: `${int(t.ghost_commits_possible)} (${int(t.ghost_commits_possible_alarming)} irreversible or unknown; in flight at Stop, outcome not seen)`,
      bad: t.ghost_commits_possible > 0,
    },
    // The far side's witness (issue 49): shown once a service's spans decided a commit. (`?? 0`: an older report's JSON has none.)
    ...((t.ghost_commits_confirmed ?? 0) + (t.ghost_commits_ruled_out ?? 0) > 0
      ? [
          {
            label: 'Witnessed by the service',
            value: `${int(t.ghost_commits_confirmed ?? 0)} confirmed, ${int(t.ghost_commits_ruled_out ?? 0)} ruled out (its own spans, beyond the clock bound)`,
            bad: false,
          },
        ]
      : []),
    { label: 'Orphan tool calls', value: int(t.orphan_tool_calls), bad: t.orphan_tool_calls > 0 },
    { label: 'Post-cancel errors', value: int(postCancel), bad: postCancel > 0 },
    { label: 'Replay duplicates', value: t.replays_deduplicated > 0 ? `${int(t.replay_duplicates)} (+${int(t.replays_deduplicated)} deduplicated by key)` : int(t.replay_duplicates), bad: t.replay_duplicates > 0 },
    { label: 'Cancel ack p50 / p95', value: `${ms(t.cancel_ack_ms.p50)} / ${ms(t.cancel_ack_ms.p95)}`, bad: (t.cancel_ack_ms.p95 ?? 0) > 1000 },
    { label: 'Unacknowledged cancels', value: int(t.unacknowledged_cancels), bad: t.unacknowledged_cancels > 0 },
    { label: 'Orphan processes', value: int(t.orphan_processes), bad: t.orphan_processes > 0 },
    // The guard's work (afterstop addition): shown once it did any.
    ...(t.commits_prevented + t.replays_deduplicated + t.deadline_cancels > 0
      ? [
          {
            label: 'Guard',
            value: `${int(t.commits_prevented)} commits prevented (${int(t.commits_prevented_alarming)} irreversible or unknown), ${int(t.replays_deduplicated)} replays deduplicated, ${int(t.deadline_cancels)} deadline cancels`,
            bad: false,
          },
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

/** The worst findings first (the report orders them by severity). */
export function worstFindings(report: LeakReport, limit: number): Finding[] {
  return report.findings.slice(0, limit);
}
/** `#` is the finding's number in the report, which `afterstop explain N` takes. */
export const FINDINGS_HEADER = ['#', 'severity', 'kind', 'time', 'tool', 'trace id', 'detail'];
export const findingRow = (f: Finding, i: number): string[] => [String(i + 1), String(f.severity), f.kind, f.time, f.tool ?? '', f.trace_id, f.detail];

/**
 * What the report says when it lists no finding: an all-clear only where runs were read and some were
 * stopped; otherwise why there is nothing (nothing read is not nothing found).
 */
export function noFindings(report: LeakReport): string {
  if (report.evidence.status !== 'runs') return 'No findings, because there was nothing to judge: this is not an all-clear.';
  if (report.totals.cancelled_runs === 0) return `No run was stopped in this window (${int(report.totals.runs)} run(s)): nothing to measure after Stop.`;
  return 'No findings: nothing kept running after Stop in this window.';
}

/** Where the figures came from, in one line. */
export function provenance(report: LeakReport): string {
  const w = report.window;
  const window = w.from === null && w.to === null ? 'all time' : `${w.from ?? '…'} to ${w.to ?? '…'}`;
  const i = report.input;
  return `window: ${window} · ${int(i.files)} file(s), ${int(i.spans_added)} new span(s) (${int(i.spans_in_store)} in the store), ${int(i.skipped_count)} line(s) skipped · prices ${report.prices.source}${report.prices.as_of ? ` as of ${report.prices.as_of}` : ''}`;
}
