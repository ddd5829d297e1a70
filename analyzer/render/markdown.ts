import type { LeakReport } from '../types.js';
import { futureRunsNote } from '../report-evidence.js';
import { terminalLine, terminalSafe } from './text-table.js';
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
import { verdict } from './verdict.js';

/** Markdown and the HTML it may carry, escaped: trace content cannot break a table, inject a link or markup. */
const escapeMarkdown = (value: string): string =>
  value
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

/**
 * One table cell of trace content: Markdown and the HTML it may carry are
 * escaped, so a span name cannot break the table, inject a link or markup;
 * control characters are shown as U+FFFD (a report read with `cat` cannot
 * rewrite the terminal); a long cell is cut.
 */
export function markdownCell(value: string): string {
  return escapeMarkdown(terminalSafe(value));
}

/** A paragraph that may hold trace content (the verdict): escaped as a cell is, on one line, never cut. */
export function markdownText(value: string): string {
  return escapeMarkdown(terminalLine(value));
}

/** A GitHub-flavoured Markdown table. */
export function markdownTable(header: string[], rows: string[][]): string[] {
  return [`| ${header.map(markdownCell).join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(markdownCell).join(' | ')} |`)];
}

/** Options of the Markdown report. */
export interface MarkdownOptions {
  /** How many findings to list (the worst first), each under its kind. */
  findings?: number;
  /** The budgets given, as cli/budgets.ts judged them: a figure over its budget says so. */
  budgets?: readonly BudgetStatus[];
}

/**
 * The leak report as Markdown, for a pull request or a chat message: the verdict, the figures that need
 * attention, the other figures, the findings by kind with their remedy, then the tables.
 */
export function renderMarkdown(report: LeakReport, options: MarkdownOptions = {}): string {
  const out: string[] = ['## afterstop leak report', ''];
  // The verdict first; nothing read is not nothing found (the evidence's note is the verdict then).
  const v = verdict(report, options.budgets);
  out.push(report.evidence.note !== null ? `> **Nothing to judge.** ${markdownText(v.sentence)}` : `> **Verdict:** ${markdownText(v.sentence)}`, '');
  out.push(`_${markdownCell(provenance(report))}_`, '');
  const bound = lowerBound(report, markdownCell);
  if (bound !== undefined) out.push(`> **${bound}**`, '');
  const lines = headline(report, options.budgets);
  const value = (l: SummaryLine): string => (l.budget === '' ? l.value : `${l.value} (${l.budget})`);
  const { attention, other, zero } = figureParts(lines);
  if (attention.length > 0) {
    out.push(
      '### Needs attention',
      '',
      ...markdownTable(
        ['figure', 'value'],
        attention.map((l) => [l.label, value(l)]),
      ),
      '',
    );
  }
  out.push(
    '### Other figures',
    '',
    ...markdownTable(
      ['figure', 'value'],
      other.map((l) => [l.label, value(l)]),
    ),
  );
  if (zero !== undefined) out.push('', `${zero}.`);

  const groups = findingGroups(report, options.findings ?? 10);
  if (groups.length > 0) {
    out.push('', `### ${findingsTitle(report, groups)}`);
    for (const g of groups) {
      // The remedy is afterstop's own text (its code spans kept); the rows are trace content, escaped.
      out.push('', `**\`${g.kind}\` × ${g.count}**: ${g.remedy}`);
      if (g.rows.length > 0)
        out.push(
          '',
          ...markdownTable(
            FINDINGS_HEADER,
            g.rows.map((r) => findingRow(r.number, r.finding)),
          ),
        );
    }
  } else {
    out.push('', noFindings(report));
  }
  const byTool = ghostCommitsByTool(report);
  if (byTool.length > 0) out.push('', '### Ghost commits by tool', '', ...markdownTable(GHOST_COMMITS_HEADER, byTool));
  const scores = scorecard(report);
  if (scores.length > 0) {
    out.push('', '### Cancel depth per framework', '', '0: Stop stops nothing · 1 loop · 2 model · 3 tools · 4 effects: Stop stops everything', '');
    out.push(...markdownTable(SCORECARD_HEADER, scores));
  }
  if (report.input.skipped_count > 0) out.push('', `${report.input.skipped_count} input line(s) skipped.`);
  const future = futureRunsNote(report);
  if (future !== null) out.push('', markdownCell(future));
  return `${out.join('\n')}\n`;
}
