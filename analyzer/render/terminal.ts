import { styleText } from 'node:util';
import type { LeakReport } from '../types.js';
import { futureRunsNote } from '../report-evidence.js';
import type { BudgetStatus } from '../metrics/metric-families.js';
import { findingGroups } from './remedies.js';
import {
  FINDINGS_HEADER,
  findingRow,
  figureParts,
  findingsTitle,
  GHOST_COMMITS_HEADER,
  ghostCommitsByTool,
  headline,
  lowerBound,
  noFindings,
  provenance,
  SCORECARD_HEADER,
  scorecard,
  type SummaryLine,
} from './summary.js';
import { type Verdict, verdict } from './verdict.js';
import { columns, terminalLine, terminalSafe } from './text-table.js';

export interface TerminalOptions {
  /** ANSI colours (see {@link colorWanted}). */
  color: boolean;
  /** How many findings to list (the worst first), each under its kind. */
  findings?: number;
  /** The budgets given, as cli/budgets.ts judged them: a figure over its budget says so. */
  budgets?: readonly BudgetStatus[];
}

/**
 * Colour only on a terminal, never when NO_COLOR is set to anything
 * (no-color.org); FORCE_COLOR (not 0) asks for it anyway.
 */
export function colorWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return true;
  return stream.isTTY === true;
}

/**
 * The width to draw for: the terminal's, else COLUMNS (as POSIX shells export it; a pipe has no width, and
 * `COLUMNS=120 afterstop explain 1 | less -R` draws as a 120-column terminal would), else `fallback`.
 */
export function terminalColumns(stream: { columns?: number }, env: NodeJS.ProcessEnv = process.env, fallback = 100): number {
  if (stream.columns !== undefined && stream.columns > 0) return stream.columns;
  const columns = Number(env['COLUMNS']);
  return Number.isInteger(columns) && columns > 0 ? columns : fallback;
}

/** The verdict's colour: red for something to look at, yellow for what could not be judged or ruled out, green for an all-clear. */
const VERDICT_STYLE: Record<Verdict['status'], Parameters<typeof styleText>[0]> = {
  attention: ['bold', 'red'],
  possible: ['bold', 'yellow'],
  lower_bound: ['bold', 'yellow'],
  nothing_to_judge: ['bold', 'yellow'],
  clear: ['bold', 'green'],
};

/**
 * The leak report as a compact summary for a terminal: the verdict, the figures that need attention (over a
 * budget, or not zero where zero is healthy), the other figures, the findings by kind with their remedy, then
 * ghost commits by tool and the cancel-depth scorecard.
 */
export function renderTerminal(report: LeakReport, options: TerminalOptions): string {
  // The caller decided on colour (colorWanted: a terminal, NO_COLOR, FORCE_COLOR, --out): Node 22.13+ would
  // otherwise check process.stdout again and drop the colour for a report written elsewhere.
  const paint = (format: Parameters<typeof styleText>[0], text: string): string => (options.color ? styleText(format, text, { validateStream: false }) : text);
  const heading = (text: string): string => paint('bold', text);
  const out: string[] = [heading('afterstop leak report')];
  // The verdict first; nothing read is not nothing found (the evidence's note is the verdict then).
  const v = verdict(report, options.budgets);
  out.push(paint(VERDICT_STYLE[v.status], terminalLine(report.evidence.note !== null ? `NOTHING TO JUDGE: ${v.sentence}` : v.sentence)));
  out.push(paint('dim', terminalSafe(provenance(report))), '');

  const bound = lowerBound(report, terminalLine);
  if (bound !== undefined) out.push(paint(['bold', 'yellow'], bound), '');
  const lines = headline(report, options.budgets);
  const width = Math.max(...lines.map((l) => l.label.length));
  const row = (l: SummaryLine, value: string): string => `  ${l.label.padEnd(width)}  ${value}${l.budget === '' ? '' : `  ${paint('dim', `(${l.budget})`)}`}`;
  const { attention, other, zero } = figureParts(lines);
  if (attention.length > 0) {
    out.push(heading('Needs attention'));
    for (const l of attention) out.push(row(l, paint(['bold', 'red'], l.value)));
    out.push('');
  }
  out.push(heading('Other figures'));
  for (const l of other) out.push(row(l, l.value));
  if (zero !== undefined) out.push(paint('dim', `  ${zero}`));

  const groups = findingGroups(report, options.findings ?? 10);
  if (groups.length > 0) {
    out.push('', heading(findingsTitle(report, groups)));
    for (const g of groups) {
      out.push(`  ${paint('bold', g.kind)} ×${g.count}  ${g.remedy}`);
      if (g.rows.length > 0) {
        const rows = g.rows.map((r) => findingRow(r.number, r.finding));
        out.push(...columns(FINDINGS_HEADER, rows, (c, i) => (i < 0 ? paint('dim', c) : c)).map((l) => `    ${l}`));
      }
    }
  } else {
    out.push('', noFindings(report));
  }

  const byTool = ghostCommitsByTool(report);
  if (byTool.length > 0) {
    out.push('', heading('Ghost commits by tool'));
    out.push(...columns(GHOST_COMMITS_HEADER, byTool, (c, i) => (i < 0 ? paint('dim', c) : c)).map((l) => `  ${l}`));
  }

  const scores = scorecard(report);
  if (scores.length > 0) {
    out.push('', heading('Cancel depth per framework'), paint('dim', '  0: Stop stops nothing · 1 loop · 2 model · 3 tools · 4 effects: Stop stops everything'));
    out.push(...columns(SCORECARD_HEADER, scores, (c, i) => (i < 0 ? paint('dim', c) : c)).map((l) => `  ${l}`));
  }
  if (report.input.skipped_count > 0) {
    out.push('', paint('yellow', `${report.input.skipped_count} input line(s) skipped: see input.skipped in --format json`));
  }
  const future = futureRunsNote(report);
  if (future !== null) out.push('', paint('yellow', terminalLine(future)));
  return `${out.join('\n')}\n`;
}
