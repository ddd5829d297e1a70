import { styleText } from 'node:util';
import type { LeakReport } from '../types.js';
import { futureRunsNote } from '../report-evidence.js';
import { FINDINGS_HEADER, findingRow, GHOST_COMMITS_HEADER, ghostCommitsByTool, headline, noFindings, lowerBound, provenance, SCORECARD_HEADER, scorecard, worstFindings } from './summary.js';
import { columns, terminalLine, terminalSafe } from './text-table.js';

export interface TerminalOptions {
  /** ANSI colours (see {@link colorWanted}). */
  color: boolean;
  /** How many findings to list (the worst first). */
  findings?: number;
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

/** The leak report as a compact summary for a terminal. */
export function renderTerminal(report: LeakReport, options: TerminalOptions): string {
  // The caller decided on colour (colorWanted: a terminal, NO_COLOR, FORCE_COLOR, --out): Node 22.13+ would
  // otherwise check process.stdout again and drop the colour for a report written elsewhere.
  const paint = (format: Parameters<typeof styleText>[0], text: string): string => (options.color ? styleText(format, text, { validateStream: false }) : text);
  const heading = (text: string): string => paint('bold', text);
  const out: string[] = [heading('afterstop leak report')];
  // Nothing read is not nothing found: said before any figure.
  if (report.evidence.note !== null) out.push(paint(['bold', 'yellow'], terminalLine(`NOTHING TO JUDGE: ${report.evidence.note}`)));
  out.push(paint('dim', terminalSafe(provenance(report))), '');

  const bound = lowerBound(report, terminalLine);
  if (bound !== undefined) out.push(paint(['bold', 'yellow'], bound), '');
  const lines = headline(report);
  const width = Math.max(...lines.map((l) => l.label.length));
  for (const l of lines) out.push(`  ${l.label.padEnd(width)}  ${l.bad ? paint(['bold', 'red'], l.value) : l.value}`);

  const byTool = ghostCommitsByTool(report);
  if (byTool.length > 0) {
    out.push('', heading('Ghost commits by tool'));
    out.push(...columns(GHOST_COMMITS_HEADER, byTool, (c, row) => (row < 0 ? paint('dim', c) : c)).map((l) => `  ${l}`));
  }

  const scores = scorecard(report);
  if (scores.length > 0) {
    out.push('', heading('Cancel depth per framework'), paint('dim', '  0: Stop stops nothing · 1 loop · 2 model · 3 tools · 4 effects: Stop stops everything'));
    out.push(...columns(SCORECARD_HEADER, scores, (c, row) => (row < 0 ? paint('dim', c) : c)).map((l) => `  ${l}`));
  }

  const limit = options.findings ?? 10;
  const worst = worstFindings(report, limit);
  if (worst.length > 0) {
    out.push('', heading(`Worst findings (${worst.length} of ${report.findings.length})`));
    out.push(...columns(FINDINGS_HEADER, worst.map(findingRow), (c, row) => (row < 0 ? paint('dim', c) : c)).map((l) => `  ${l}`));
  } else {
    out.push('', noFindings(report));
  }
  if (report.input.skipped_count > 0) {
    out.push('', paint('yellow', `${report.input.skipped_count} input line(s) skipped: see input.skipped in --format json`));
  }
  const future = futureRunsNote(report);
  if (future !== null) out.push('', paint('yellow', terminalLine(future)));
  return `${out.join('\n')}\n`;
}
