/**
 * A run's timeline as text lines: one per model call, tool call, commit and
 * marker, in time order, offsets from Stop, bars scaled to a width, colour
 * only when asked. Shared by `explain`'s terminal and Markdown renderings;
 * trace content goes through terminalSafe.
 */
import { styleText } from 'node:util';
import type { RunTimeline } from '../types.js';
import { terminalSafe, wrapWords } from './text-table.js';
import { figureLines, pickRows, runTitle, signedMs, timelineRows, timeRange, type TimelineRow } from './timeline-rows.js';

export interface TimelineTextOptions {
  /** ANSI colours (colorWanted). */
  color: boolean;
  /** The line width to fit (the terminal's columns; default 100). */
  width?: number;
}

export type Paint = (format: Parameters<typeof styleText>[0], text: string) => string;
export const painter =
  (color: boolean): Paint =>
  (format, text) =>
    color ? styleText(format, text, { validateStream: false }) : text;

const BEFORE = '▒';
const AFTER = '█';
/** A span of the service a tool's request reached, its times mapped from its clock. */
const SERVICE_BEFORE = '░';
const SERVICE_AFTER = '▓';
/** A commit's interval: earliest ├──┤ latest, an open end ──→. */
const SPAN = '─';
const FROM = '├';
const TO = '┤';
const OPEN_END = '→';
const COMMIT = '◆';
const MARK = '•';
const STOP = '│';
/** The acknowledgement and the settle. */
const LINE = '┆';
/** Room left beside the bars for the offset and a label. */
export const LABEL_ROOM = 48;
/** At most this many lines per run (`--format json` has every item). */
export const MAX_TEXT_ROWS = 500;

export const LEGEND = `${BEFORE} before Stop  ${AFTER} after Stop  ${STOP} Stop  ${LINE} ack, settle  ${COMMIT} commit  ${FROM}${SPAN}${TO} its interval (${SPAN}${OPEN_END} no end known)  ${SERVICE_BEFORE}${SERVICE_AFTER} ↳ the service's span (its clock mapped: ≈)  ${MARK} marker  … never ended`;

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
      cells[i] = { text: r.service ? (after ? SERVICE_AFTER : SERVICE_BEFORE) : after ? AFTER : BEFORE, after };
    }
  } else {
    if (r.interval !== null) {
      // The interval under the commit's mark: its Stop column kept, so that which side each end lies on shows.
      const a = col(r.interval.from);
      const b = r.interval.to === null ? width - 1 : col(r.interval.to);
      for (let i = a; i <= b; i++) if (i !== stop) cells[i] = { text: i === b && r.interval.to === null ? OPEN_END : i === a ? FROM : i === b ? TO : SPAN, after: false };
    }
    const at = col(r.start_ms);
    cells[at] = { text: r.line === 'stop' ? STOP : r.line !== null ? LINE : r.item?.kind === 'commit' ? COMMIT : MARK, after: cancelled && r.start_ms > 0 && r.alarm };
  }
  return cells;
}

/** The chart of one run: a line per row (at most MAX_TEXT_ROWS, then how many more), offsets padded alike. */
export function chartLines(t: RunTimeline, next: boolean, width: number, paint: Paint): string[] {
  const { shown: rows, left } = pickRows(timelineRows(t, next), MAX_TEXT_ROWS);
  const range = timeRange(t);
  const cancelled = t.cancelled && !next;
  const offsets = rows.map((r) => signedMs(r.start_ms));
  let offsetWidth = 6;
  for (const o of offsets) offsetWidth = Math.max(offsetWidth, o.length);
  const barWidth = Math.max(12, Math.min(72, width - offsetWidth - 4 - LABEL_ROOM));
  const lines = rows.map((r, i) => {
    const cells = barCells(r, barWidth, range, cancelled);
    const bar = cells.map((c) => (c.after ? paint('red', c.text) : c.text === STOP && r.line === null ? paint('dim', c.text) : c.text)).join('');
    const label = terminalSafe(r.label) + (r.open ? ' …' : '');
    const note = r.note === '' ? '' : `  ${terminalSafe(r.note)}`;
    const text = r.line === 'stop' ? paint('bold', label) : label;
    const styled = r.alarm ? paint(['bold', 'red'], `${label}${note}`) : `${text}${r.inferred ? paint('dim', note) : note}`;
    return `${offsets[i]!.padStart(offsetWidth)}  ${bar}  ${styled}`.trimEnd();
  });
  if (left > 0) lines.push(`  … ${left} more not shown (the first Stop, ack and settle, the flagged items and those nearest the Stop are; --format json has all)`);
  if (t.items.length === 0) lines.push(next ? '  (no model call, tool call or marker of that run was exported: it failed before any)' : '  (no model call, tool call or marker of this run was exported)');
  return lines;
}

/** One run, the next run of its conversation below it, and its figures, as terminal lines. */
export function timelineLines(t: RunTimeline, options: TimelineTextOptions): string[] {
  const paint = painter(options.color);
  const width = options.width ?? 100;
  const out: string[] = [paint('bold', `Run ${terminalSafe(t.run_id)} of trace ${terminalSafe(t.trace_id)}`), paint('dim', terminalSafe(runTitle(t))), '', ...chartLines(t, false, width, paint)];
  if (t.next_run !== null) {
    out.push('', paint('bold', `Next run of the conversation: ${terminalSafe(t.next_run.run_id)} of trace ${terminalSafe(t.next_run.trace_id)}`));
    out.push(...chartLines(t.next_run, true, width, paint));
  }
  // The legend and the figures wrapped at the terminal's width (a hanging indent under each figure's value).
  out.push('', ...wrapWords(`${LEGEND}; offsets from Stop${t.cancelled ? '' : ' (here: from the run’s start; it was not cancelled)'}`, width).map((l) => paint('dim', l)));
  out.push('', paint('bold', 'Figures (METRICS.md)'));
  const lines = figureLines(t);
  let w = 0;
  for (const [k] of lines) w = Math.max(w, k.length);
  for (const [k, v] of lines) out.push(...wrapWords(`  ${k.padEnd(w)}  ${terminalSafe(v)}`, width, w + 4));
  return out;
}
