import type { LeakReport } from '../types.js';
import { futureRunsNote } from '../report-evidence.js';
import { terminalSafe } from './text-table.js';
import { FINDINGS_HEADER, findingRow, GHOST_COMMITS_HEADER, ghostCommitsByTool, headline, lowerBound, noFindings, provenance, SCORECARD_HEADER, scorecard, worstFindings } from './summary.js';

/**
 * One table cell of trace content: Markdown and the HTML it may carry are
 * escaped, so a span name cannot break the table, inject a link or markup;
 * control characters are shown as U+FFFD (a report read with `cat` cannot
 * rewrite the terminal).
 */
export function markdownCell(value: string): string {
  return terminalSafe(value)
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** A GitHub-flavoured Markdown table. */
export function markdownTable(header: string[], rows: string[][]): string[] {
  return [`| ${header.map(markdownCell).join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(markdownCell).join(' | ')} |`)];
}

/** The leak report as Markdown, for a pull request or a chat message. */
export function renderMarkdown(report: LeakReport, options: { findings?: number } = {}): string {
  const out: string[] = ['## afterstop leak report', ''];
  // Nothing read is not nothing found: said before any figure.
  if (report.evidence.note !== null) out.push(`> **Nothing to judge.** ${markdownCell(report.evidence.note)}`, '');
  out.push(`_${markdownCell(provenance(report))}_`, '');
  const bound = lowerBound(report, markdownCell);
  if (bound !== undefined) out.push(`> **${bound}**`, '');
  out.push(
    ...markdownTable(
      ['figure', 'value'],
      headline(report).map((l) => [l.label, l.value]),
    ),
  );
  const byTool = ghostCommitsByTool(report);
  if (byTool.length > 0) out.push('', '### Ghost commits by tool', '', ...markdownTable(GHOST_COMMITS_HEADER, byTool));
  const scores = scorecard(report);
  if (scores.length > 0) {
    out.push('', '### Cancel depth per framework', '', '0: Stop stops nothing · 1 loop · 2 model · 3 tools · 4 effects: Stop stops everything', '');
    out.push(...markdownTable(SCORECARD_HEADER, scores));
  }
  const worst = worstFindings(report, options.findings ?? 10);
  if (worst.length > 0) {
    out.push('', `### Worst findings (${worst.length} of ${report.findings.length})`, '', ...markdownTable(FINDINGS_HEADER, worst.map(findingRow)));
  } else {
    out.push('', noFindings(report));
  }
  if (report.input.skipped_count > 0) out.push('', `${report.input.skipped_count} input line(s) skipped.`);
  const future = futureRunsNote(report);
  if (future !== null) out.push('', markdownCell(future));
  return `${out.join('\n')}\n`;
}
