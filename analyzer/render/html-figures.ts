/**
 * The top of the HTML report: the verdict in a banner, the figures that need attention as large cards (with
 * the budget each broke), then the other figures as small ones, those at zero last. Every value is the
 * report's; every text is escaped.
 */
import type { BudgetStatus } from '../metrics/metric-families.js';
import { futureRunsNote } from '../report-evidence.js';
import type { LeakReport } from '../types.js';
import { budgetNotes, type FigureKey, judgeFigures } from './attention.js';
import { int, ms, usd } from './format.js';
import { escapeHtml } from './svg-chart.js';
import { verdict } from './verdict.js';

/** A figure's card: its key (`data-figure`), value, name and what the value is made of. */
interface Card {
  key: FigureKey;
  value: string;
  label: string;
  note?: string;
}

/** The cards, the gravest first (the order of the attention section; the other figures keep it too). */
function cards(report: LeakReport): Card[] {
  const t = report.totals;
  const tok = t.tokens_after_stop;
  const postCancel = t.post_cancel_errors.orphan_tool_call_rejected + t.post_cancel_errors.other;
  return [
    {
      key: 'ghost_commits',
      value: int(t.ghost_commits),
      label: 'ghost commits',
      note: `${int(t.ghost_commits_alarming)} irreversible or unknown, ${int(t.ghost_commits_compensated)} compensated, ${int(t.ghost_commits_inferred)} inferred`,
    },
    {
      key: 'ghost_commits_possible',
      value: int(t.ghost_commits_possible),
      label: 'possible ghost commits',
      note: `in flight at Stop, outcome not seen; ${int(t.ghost_commits_possible_alarming)} irreversible or unknown`,
    },
    {
      key: 'replay_duplicates',
      value: int(t.replay_duplicates),
      label: 'replay duplicates',
      note: `in ${int(t.replayed_conversations)} conversation(s); ${int(t.replays_deduplicated)} more deduplicated by their idempotency key`,
    },
    { key: 'post_cancel_errors', value: int(postCancel), label: 'post-cancel errors', note: `${int(t.post_cancel_errors.orphan_tool_call_rejected)} rejected orphan tool calls, ${int(t.post_cancel_errors.other)} other` },
    { key: 'orphan_tool_calls', value: int(t.orphan_tool_calls), label: 'orphan tool calls', note: `${int(t.repaired_tool_calls)} repaired, ${int(t.late_results)} late results` },
    {
      key: 'tokens_after_stop',
      value: int(tok.input + tok.output),
      label: 'tokens after Stop',
      note: `${int(tok.input)} input, ${int(tok.output)} output; ${int(tok.estimated_calls)} call(s) estimated${tok.calls_without_usage > 0 ? `; ${int(tok.calls_without_usage)} call(s) without usage, not counted` : ''}`,
    },
    {
      key: 'ghost_tax_usd',
      value: usd(t.ghost_tax_usd),
      label: 'ghost tax',
      note:
        tok.unpriced_calls > 0
          ? `and unpriced, missing from it: ${int(tok.unpriced_calls)} call(s), ${int(tok.unpriced_tokens.input)} input and ${int(tok.unpriced_tokens.output)} output tokens`
          : `prices: ${report.prices.source}`,
    },
    { key: 'unacknowledged_cancels', value: int(t.unacknowledged_cancels), label: 'unacknowledged cancels' },
    { key: 'cancel_ack_p95_ms', value: ms(t.cancel_ack_ms.p95), label: 'cancel ack p95', note: `max ${ms(t.cancel_ack_ms.max)}` },
    { key: 'unended_runs', value: int(t.unended_runs), label: 'unended runs', note: 'the run span was never exported (the process hung or died)' },
    { key: 'orphan_processes', value: int(t.orphan_processes), label: 'orphan processes' },
    { key: 'cleanup_errors', value: int(t.cleanup_errors), label: 'cleanup errors' },
    { key: 'steering_dropped', value: int(t.steering.dropped), label: 'steering messages dropped' },
    { key: 'steering_violations', value: int(t.steering.violations), label: 'steering violations' },
    { key: 'runs', value: int(t.runs), label: 'runs', note: `${int(t.unended_runs)} never ended` },
    { key: 'cancelled_runs', value: int(t.cancelled_runs), label: 'cancelled runs', note: `${int(t.cancelled_runs_inferred)} inferred` },
    { key: 'cancel_ack_p50_ms', value: ms(t.cancel_ack_ms.p50), label: 'cancel ack p50', note: `of ${int(t.cancel_ack_ms.count)} acknowledged cancel(s)` },
    {
      key: 'commits_prevented',
      value: int(t.commits_prevented),
      label: 'commits prevented',
      note: `by the guard's fence after Stop, nothing sent; ${int(t.commits_prevented_alarming)} irreversible or unknown; ${int(t.deadline_cancels)} deadline cancel(s)`,
    },
  ];
}

/** The other figures that lead their section, in this order. */
const REST_FIRST: readonly FigureKey[] = ['runs', 'cancelled_runs', 'cancel_ack_p50_ms', 'cancel_ack_p95_ms', 'commits_prevented'];

/** Figures shown below the cards, as a line each: distributions and steering's latency. */
function others(report: LeakReport): string {
  const t = report.totals;
  const items: [string, string][] = [
    ['cancel settle p50 / p95', `${ms(t.cancel_settle_ms.p50)} / ${ms(t.cancel_settle_ms.p95)}`],
    ['steering inject p50 / p95', `${ms(t.steering.inject_ms.p50)} / ${ms(t.steering.inject_ms.p95)}`],
  ];
  return `<dl class="others">${items.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd></div>`).join('')}</dl>`;
}

/**
 * The verdict, first (verdict.ts); with nothing to judge it is the evidence's note, in the banner the page
 * has always had for it (data-evidence), and the runs stamped in the future after it.
 */
export function verdictBanner(report: LeakReport, budgets: readonly BudgetStatus[]): string {
  const v = verdict(report, budgets);
  const future = futureRunsNote(report);
  const futureLine = future === null ? '' : `<p class="nothing" data-evidence="future_runs">${escapeHtml(future)}</p>`;
  const banner =
    report.evidence.note !== null
      ? `<p class="nothing" role="alert" data-verdict="${v.status}" data-evidence="${escapeHtml(report.evidence.status)}"><strong>Nothing to judge.</strong> ${escapeHtml(v.sentence)}</p>`
      : `<p class="verdict verdict-${v.status}" role="status" data-verdict="${v.status}">${escapeHtml(v.sentence)}</p>`;
  return banner + futureLine;
}

/** The figures: those that need attention (large, each with its budget), then the others (small, those at zero last). */
export function figureSections(report: LeakReport, budgets: readonly BudgetStatus[]): string {
  const judge = judgeFigures(report, budgets);
  const judged = cards(report).map((c) => ({ ...c, j: judge(c.key) }));
  const card = (c: (typeof judged)[number], size: 'large' | 'small'): string => {
    const budget = budgetNotes(c.j);
    return (
      `<div class="card ${size}${c.j.zero ? ' zero' : ''}"><div class="value" data-figure="${c.key}">${escapeHtml(c.value)}</div><div class="name">${escapeHtml(c.label)}</div>` +
      `${budget ? `<div class="budget${c.j.budgets.some((b) => b.exceeded) ? ' broken' : ''}">${escapeHtml(budget)}</div>` : ''}${c.note ? `<div class="note">${escapeHtml(c.note)}</div>` : ''}</div>`
    );
  };
  // Steering's figures are not a Stop's: shown only when not zero.
  const shown = judged.filter((c) => !((c.key === 'steering_dropped' || c.key === 'steering_violations') && c.j.zero));
  const attention = shown.filter((c) => c.j.attention);
  // The others: the window's shape first (runs, latencies, the guard's work), then what kept to its healthy value.
  const rank = (c: (typeof judged)[number]): number => (c.j.zero ? 2 : REST_FIRST.includes(c.key) ? 0 : 1) * 100 + Math.max(0, REST_FIRST.indexOf(c.key));
  const rest = shown.filter((c) => !c.j.attention).sort((a, b) => rank(a) - rank(b));
  const attentionSection =
    attention.length === 0 ? '' : `<section class="attention"><h2>Needs attention (${int(attention.length)})</h2>\n<div class="cards">\n${attention.map((c) => card(c, 'large')).join('\n')}\n</div>\n</section>\n`;
  return `${attentionSection}<section class="other-figures"><h2>Other figures</h2>\n<div class="cards">\n${rest.map((c) => card(c, 'small')).join('\n')}\n</div>\n${others(report)}\n</section>`;
}

/** The look of the banner and the cards. */
export const FIGURES_STYLE = `
.verdict { margin: 14px 0; padding: 12px 16px; border-radius: 6px; font-size: 16px; font-weight: 600; border: 2px solid; }
.verdict-attention { border-color: #cf222e; background: #ffebe9; color: #67060c; }
.verdict-possible, .verdict-lower_bound, .verdict-nothing_to_judge { border-color: #bf8700; background: #fff8c5; color: #3b2300; }
.verdict-clear { border-color: #1a7f37; background: #dafbe1; color: #0a3069; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; margin-top: 12px; }
.other-figures .cards { grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 6px; align-items: start; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; break-inside: avoid; }
.card .value { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; } .card .name { font-weight: 500; } .card .note { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.card.large { border: 2px solid #cf222e; } .card.large .value { font-size: 30px; color: #a40e26; }
.card.small { padding: 6px 10px; } .card.small .value { font-size: 16px; } .card.small .name { font-size: 12px; } .card.small .note { font-size: 11px; }
.card.zero { color: var(--muted); background: var(--bg-alt); } .card.zero .note { display: none; }
.card .budget { font-size: 12px; font-weight: 600; } .card .budget.broken { color: #a40e26; }
.others { margin-top: 12px; }
.kind { margin: 18px 0 8px; } .kind h3 { font-size: 15px; margin: 0 0 4px; } .remedy { margin: 0 0 8px; padding: 6px 10px; border-left: 4px solid #1a7f37; background: var(--bg-alt); }
`;
