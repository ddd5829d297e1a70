/**
 * `afterstop explain` as text: a run's timeline, one line per model call,
 * tool call, commit and marker, offsets from Stop, bars scaled to the width
 * given (the terminal's), colour only when asked; and the same as Markdown,
 * for a ticket. Trace content goes through terminalSafe / markdownCell.
 */
import { styleText } from 'node:util';
import type { Explanation } from '../explain.js';
import type { RunTimeline } from '../types.js';
import { markdownCell } from './markdown.js';
import { terminalSafe } from './text-table.js';
import { figureLines, runTitle, signedMs, timelineRows, timeRange, type TimelineRow } from './timeline-rows.js';

export interface TimelineTextOptions {
  /** ANSI colours (colorWanted). */
  color: boolean;
  /** The line width to fit (the terminal's columns; default 100). */
  width?: number;
}

type Paint = (format: Parameters<typeof styleText>[0], text: string) => string;

const BEFORE = '▒';
const AFTER = '█';
const COMMIT = '◆';
const MARK = '•';
const STOP = '│';
/** The acknowledgement and the settle. */
const LINE = '┆';
/** Room left beside the bars for the offset and a label. */
const LABEL_ROOM = 48;

/** The bar cells of one row: `width` characters on the axis [from, to]. */
function barCells(r: TimelineRow, width: number, range: { from: number; to: number }, cancelled: boolean): { text: string; after: boolean }[] {
  const col = (ms: number): number => Math.max(0, Math.min(width - 1, Math.round(((ms - range.from) / (range.to - range.from)) * (width - 1))));
  // The Stop's column, when the axis holds it (a next run's chart may lie wholly after it).
  const stop = range.from <= 0 && range.to >= 0 ? col(0) : -1;
  const cells: { text: string; after: boolean }[] = Array.from({ length: width }, (_, i) => ({ text: i === stop ? STOP : ' ', after: false }));
  if (r.shape === 'bar') {
    const a = col(r.start_ms);
    const b = r.open || r.end_ms === null ? width - 1 : col(r.end_ms);
    for (let i = a; i <= b; i++) {
      const after = cancelled && stop >= 0 && (i > stop || (i === stop && r.start_ms >= 0));
      cells[i] = { text: after ? AFTER : BEFORE, after };
    }
  } else {
    const at = col(r.start_ms);
    cells[at] = { text: r.line === 'stop' ? STOP : r.line !== null ? LINE : r.item?.kind === 'commit' ? COMMIT : MARK, after: cancelled && r.start_ms > 0 && r.alarm };
  }
  return cells;
}

/** The lines of one timeline's chart (no heading). */
function chartLines(t: RunTimeline, rows: TimelineRow[], range: { from: number; to: number }, width: number, paint: Paint, cancelled: boolean): string[] {
  const offsets = rows.map((r) => signedMs(r.start_ms));
  const offsetWidth = Math.max(...offsets.map((o) => o.length), 6);
  const barWidth = Math.max(12, Math.min(72, width - offsetWidth - 4 - LABEL_ROOM));
  return rows.map((r, i) => {
    const cells = barCells(r, barWidth, range, cancelled);
    const bar = cells.map((c) => (c.after ? paint('red', c.text) : c.text === STOP && r.line === null ? paint('dim', c.text) : c.text)).join('');
    const label = terminalSafe(r.label) + (r.open ? ' …' : '');
    const note = r.note === '' ? '' : `  ${terminalSafe(r.note)}`;
    const text = r.line === 'stop' ? paint('bold', label) : label;
    const styled = r.alarm ? paint(['bold', 'red'], `${label}${note}`) : `${text}${r.inferred ? paint('dim', note) : note}`;
    return `${offsets[i]!.padStart(offsetWidth)}  ${bar}  ${styled}`.trimEnd();
  });
}

/** One run (and the next run of its conversation) as terminal lines. */
export function timelineLines(t: RunTimeline, options: TimelineTextOptions): string[] {
  const paint: Paint = (format, text) => (options.color ? styleText(format, text, { validateStream: false }) : text);
  const width = options.width ?? 100;
  const range = timeRange(t);
  const out: string[] = [
    paint('bold', `Run ${terminalSafe(t.run_id)} of trace ${terminalSafe(t.trace_id)}`),
    paint('dim', terminalSafe(runTitle(t))),
    '',
    ...chartLines(t, timelineRows(t), range, width, paint, t.cancelled),
  ];
  if (t.items.length === 0) out.push('  (no model call, tool call or marker of this run was exported)');
  if (t.next_run !== null) {
    out.push('', paint('bold', `Next run of the conversation: ${terminalSafe(t.next_run.run_id)} of trace ${terminalSafe(t.next_run.trace_id)}`));
    out.push(...chartLines(t.next_run, timelineRows(t.next_run), timeRange(t.next_run), width, paint, false));
    if (t.next_run.items.length === 0) out.push('  (no model call, tool call or marker of that run was exported: it failed before any)');
  }
  out.push('', paint('dim', `${BEFORE} before Stop  ${AFTER} after Stop  ${STOP} Stop  ${LINE} ack, settle  ${COMMIT} commit  ${MARK} marker  … never ended; offsets from Stop${t.cancelled ? '' : ' (here: from the run’s start; it was not cancelled)'}`));
  out.push('', paint('bold', 'Figures (METRICS.md)'));
  const lines = figureLines(t);
  const w = Math.max(...lines.map(([k]) => k.length));
  for (const [k, v] of lines) out.push(`  ${k.padEnd(w)}  ${terminalSafe(v)}`);
  return out;
}

/** The whole of `afterstop explain` for a terminal. */
export function renderExplainTerminal(e: Explanation, options: TimelineTextOptions): string {
  const paint: Paint = (format, text) => (options.color ? styleText(format, text, { validateStream: false }) : text);
  const out: string[] = [];
  if (e.finding !== null) {
    const f = e.finding;
    out.push(paint('bold', `Finding: ${f.kind} (severity ${f.severity})`), terminalSafe(f.detail), '');
  }
  e.timelines.forEach((t, i) => {
    if (i > 0) out.push('', '─'.repeat(Math.min(options.width ?? 100, 100)), '');
    out.push(...timelineLines(t, options));
  });
  if (e.runs_not_drawn > 0) out.push('', `${e.runs_not_drawn} more run(s) of this trace not drawn: name one by its run id.`);
  return `${out.join('\n')}\n`;
}

/** `afterstop explain` as Markdown, for a ticket: the chart in a code block (bars 60 wide), the figures as a table. */
export function renderExplainMarkdown(e: Explanation): string {
  const out: string[] = [];
  if (e.finding !== null) out.push(`## Finding: ${markdownCell(e.finding.kind)} (severity ${e.finding.severity})`, '', markdownCell(e.finding.detail), '');
  for (const t of e.timelines) {
    out.push(`### Run \`${markdownCell(t.run_id)}\` of trace \`${markdownCell(t.trace_id)}\``, '', `_${markdownCell(runTitle(t))}_`, '');
    const range = timeRange(t);
    const plain: Paint = (_f, text) => text;
    // A fence longer than any run of backticks in the trace's text, so that nothing closes it early.
    const chart = chartLines(t, timelineRows(t), range, 60 + LABEL_ROOM + 14, plain, t.cancelled);
    if (t.next_run !== null) chart.push('', `next run of the conversation: ${terminalSafe(t.next_run.run_id)}`, ...chartLines(t.next_run, timelineRows(t.next_run), timeRange(t.next_run), 60 + LABEL_ROOM + 14, plain, false));
    const fence = '`'.repeat(Math.max(3, ...chart.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((m) => m.length + 1)))));
    out.push(`${fence}text`, ...chart, fence, '', `${BEFORE} before Stop · ${AFTER} after Stop · ${STOP} Stop · ${COMMIT} commit · offsets from Stop`, '');
    out.push('| figure | value |', '| --- | --- |', ...figureLines(t).map(([k, v]) => `| ${markdownCell(k)} | ${markdownCell(v)} |`), '');
  }
  if (e.runs_not_drawn > 0) out.push(`${e.runs_not_drawn} more run(s) of this trace not drawn.`, '');
  return `${out.join('\n')}`;
}
