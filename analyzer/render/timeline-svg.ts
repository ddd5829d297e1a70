/**
 * A run's timeline as inline SVG for the HTML report and `explain --format
 * html`: a lane per model call and tool call, commits and markers as ticks
 * on their own lanes, the Stop, the acknowledgement and the settle as
 * vertical lines across every lane (their labels in a band above, staggered
 * so that none is drawn over another), work after Stop in the alarm colour,
 * the next run of the conversation below on the same axis. Every label is cut
 * to the room it has (text-width.ts), so that none overlaps another or the
 * chart's edge; the axis is padded so that a mark at either end is whole. No script; every
 * string escaped. Every element drawn for a span carries `data-span-id`,
 * `data-kind` and its times (`data-start-ms`, `data-end-ms`, from Stop), and
 * the chart its axis (`data-from-ms`, `data-to-ms`, `data-plot-x`,
 * `data-plot-width`), so that what is drawn can be read back and checked.
 */
import { escapeHtml, shorten } from './svg-chart.js';
import { fitText, textWidth } from './text-width.js';
import { MAX_TEXT_CHARS, pickRows, signedMs, timelineRows, timeRange, type TimelineRow } from './timeline-rows.js';
import type { RunTimeline } from '../types.js';

const WIDTH = 1000;
const LABEL_WIDTH = 280;
const PLOT_X = LABEL_WIDTH + 10;
const PLOT_WIDTH = WIDTH - PLOT_X - 36;
const LANE = 20;
/** Room (px) at each end of the plot, so that a commit's diamond or a marker drawn at either end is whole. */
const PAD = 14;
/** Font sizes (px) of the lanes' names, the notes, the lines' labels and the axis (TIMELINE_STYLE). */
const LABEL_SIZE = 11;
const NOTE_SIZE = 10.5;
const TICK_SIZE = 10.5;
/** The header band's rows: one per label that would overlap those of a row above. */
const HEADER_ROW = 13;
/** At most this many lanes per run; the rest are counted below the chart. */
export const MAX_LANES = 150;

const COLORS = {
  model: '#4e79a7',
  tool: '#f28e2b',
  step: '#b07aa1',
  alarm: '#cf222e',
  next: '#8c959f',
  commit: '#59636e',
  marker: '#59636e',
  stop: '#cf222e',
  ack: '#1a7f37',
  settle: '#6639ba',
  service: '#76b7b2',
  serviceAfter: '#2f8f89',
};

const num = (value: number): string => (Math.round(value * 100) / 100).toString();

/** The x of a time on the axis. */
const scaleOf =
  (range: { from: number; to: number }) =>
  (ms: number): number =>
    PLOT_X + ((ms - range.from) / (range.to - range.from)) * PLOT_WIDTH;

/** Tick steps: 1, 2, 5 × 10^n ms, about six across the axis. */
function ticks(range: { from: number; to: number }): number[] {
  const raw = (range.to - range.from) / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(range.from / step) * step; t <= range.to; t += step) out.push(Math.round(t * 1e6) / 1e6);
  return out;
}

/** The run's time range with room at each end for half a mark. */
function padded(range: { from: number; to: number }): { from: number; to: number } {
  const pad = ((range.to - range.from) * PAD) / (PLOT_WIDTH - 2 * PAD);
  return { from: range.from - pad, to: range.to + pad };
}

/** The ticks whose labels do not overlap the one before them. */
function spaced(list: number[], x: (ms: number) => number): number[] {
  const out: number[] = [];
  let right = Number.NEGATIVE_INFINITY;
  for (const tick of list) {
    const half = textWidth(signedMs(tick), TICK_SIZE) / 2;
    if (x(tick) - half < right + 6) continue;
    out.push(tick);
    right = x(tick) + half;
  }
  return out;
}

/** Where a note may go: from x (start: rightwards, end: leftwards), with so much room, in white inside a bar or not. */
interface NoteSlot {
  x: number;
  anchor: 'start' | 'end';
  room: number;
  inside: boolean;
}

/** The slots after and before a span of the lane [left, right] (never into the lanes' names), `gap` from it. */
const besides = (left: number, right: number, gap: number): NoteSlot[] => [
  { x: right + gap, anchor: 'start', room: WIDTH - 4 - (right + gap), inside: false },
  { x: left - gap, anchor: 'end', room: left - gap - (PLOT_X + 2), inside: false },
];

/** A note in the first slot it fits whole, else cut to the slot with the most room. */
function placeNote(note: string, slots: NoteSlot[]): { x: number; anchor: 'start' | 'end'; text: string; inside: boolean } {
  const w = textWidth(note, NOTE_SIZE, true);
  const fits = slots.find((slot) => w <= slot.room);
  const slot = fits ?? slots.reduce((a, b) => (b.room > a.room ? b : a));
  return { x: slot.x, anchor: slot.anchor, text: fits ? note : fitText(note, slot.room, NOTE_SIZE, true), inside: slot.inside };
}

function noteText(r: TimelineRow, y: number, p: ReturnType<typeof placeNote>): string {
  if (p.text === '') return '';
  return `<text class="note${r.alarm ? ' alarm' : ''}${p.inside ? ' inside' : ''}" x="${num(p.x)}" y="${y + 14}"${p.anchor === 'end' ? ' text-anchor="end"' : ''}>${escapeHtml(p.text)}</text>`;
}

function data(r: TimelineRow): string {
  const item = r.item;
  if (item === null) return ' data-kind="stop-inferred" data-start-ms="0"';
  const end = r.shape === 'bar' && r.end_ms !== null ? ` data-end-ms="${r.end_ms}"` : '';
  return ` data-span-id="${escapeHtml(item.span_id)}" data-kind="${item.kind}" data-start-ms="${r.start_ms}"${end}`;
}

function lane(r: TimelineRow, y: number, x: (ms: number) => number, cancelled: boolean, next: boolean): string {
  const title = `<title>${escapeHtml(shorten(`${signedMs(r.start_ms)} ${r.label}${r.note === '' ? '' : ` ${r.note}`}`, MAX_TEXT_CHARS))}</title>`;
  const label = `<text class="lane-label${r.alarm ? ' alarm' : ''}${r.service ? ' service' : ''}" x="${LABEL_WIDTH}" y="${y + 14}" text-anchor="end">${escapeHtml(fitText(r.label, LABEL_WIDTH - 6, LABEL_SIZE, r.alarm))}${title}</text>`;
  const attrs = data(r);
  if (r.shape === 'bar') {
    const item = r.item;
    const base = next ? COLORS.next : item?.kind === 'model_call' ? COLORS.model : item?.kind === 'service_span' ? COLORS.service : item?.kind === 'tool_call' && item.tool_kind === 'step' ? COLORS.step : COLORS.tool;
    // A service span after Stop: red only for work that went through (the effect), else its own darker shade.
    const afterColor = r.service && !r.alarm ? COLORS.serviceAfter : COLORS.alarm;
    const start = r.start_ms;
    const end = r.end_ms ?? Number.NaN;
    const x1 = x(start);
    const x2 = r.open ? PLOT_X + PLOT_WIDTH : x(end);
    const dash = r.inferred ? ' stroke-dasharray="3 2" stroke="#1f2328"' : '';
    const parts: string[] = [];
    // A service span's bar is thinner, under its call's, its times mapped from the service's clock.
    const [top, tall] = r.service ? [y + 6, 8] : [y + 4, 12];
    const rect = (from: number, to: number, color: string, part: string): string =>
      `<rect class="bar${r.service ? ' service' : ''}" x="${num(from)}" y="${top}" width="${num(Math.max(1, to - from))}" height="${tall}" fill="${color}"${dash}${attrs} data-part="${part}"${r.open ? ' data-open="true"' : ''}>${title}</rect>`;
    const stopX = x(0);
    if (cancelled && !next && x2 > stopX && start < 0) {
      parts.push(rect(x1, stopX, base, 'before'), rect(stopX, x2, afterColor, 'after'));
    } else {
      parts.push(rect(x1, x2, cancelled && !next && start >= 0 ? afterColor : base, cancelled && !next && start >= 0 ? 'after' : 'before'));
    }
    if (r.open) parts.push(`<text class="open" x="${num(x2 - 2)}" y="${y + 14}" text-anchor="end">…</text>`);
    // The note after the bar; else before it; else inside it (clear of an open bar's `…`); else cut to the most room.
    const note =
      r.note === '' ? '' : noteText(r, y, placeNote(shorten(r.note, MAX_TEXT_CHARS), [...besides(x1, x2, 4), { x: x1 + 4, anchor: 'start', room: r.service ? 0 : x2 - x1 - 8 - (r.open ? 14 : 0), inside: true }]));
    return `<g class="lane">${label}${parts.join('')}${note}</g>`;
  }
  const at = x(r.start_ms);
  const item = r.item;
  const color = r.alarm ? COLORS.alarm : item?.kind === 'commit' ? COLORS.commit : COLORS.marker;
  const sent =
    r.interval !== null
      ? intervalMarks(r.interval, y, x, color, attrs)
      : item?.kind === 'commit' && item.sent_ms !== null
        ? `<line class="in-flight" x1="${num(x(item.sent_ms))}" x2="${num(at)}" y1="${y + 10}" y2="${y + 10}" stroke="${color}" stroke-dasharray="2 2"${attrs} data-part="request"/>`
        : '';
  const shape =
    item?.kind === 'commit'
      ? `<polygon class="mark commit" points="${num(at)},${y + 3} ${num(at + 6)},${y + 10} ${num(at)},${y + 17} ${num(at - 6)},${y + 10}" fill="${color}"${attrs}>${title}</polygon>`
      : `<circle class="mark marker" cx="${num(at)}" cy="${y + 10}" r="4" fill="${color}"${attrs}>${title}</circle>`;
  // The note right of the mark and its interval, else left of them, else beside the mark above its interval's line.
  const left = r.interval === null ? at : Math.min(at, x(r.interval.from));
  const right = r.interval === null ? at : r.interval.to === null ? PLOT_X + PLOT_WIDTH : Math.max(at, x(r.interval.to));
  const slots = [...besides(left, right, 9), ...(r.interval === null ? [] : besides(at, at, 9))];
  const note = r.note === '' ? '' : noteText(r, y, placeNote(shorten(r.note, MAX_TEXT_CHARS), slots));
  return `<g class="lane">${label}${sent}${shape}${note}</g>`;
}

/**
 * A commit's interval: a line from its earliest to its latest time with a cap at each end; an open end (no end
 * known) runs to the plot's end as an arrow. Carries `data-from-ms` and `data-to-ms` (absent: open).
 */
function intervalMarks(interval: { from: number; to: number | null }, y: number, x: (ms: number) => number, color: string, attrs: string): string {
  const x1 = x(interval.from);
  const x2 = interval.to === null ? PLOT_X + PLOT_WIDTH : x(interval.to);
  const range = ` data-from-ms="${interval.from}"${interval.to === null ? ' data-open="true"' : ` data-to-ms="${interval.to}"`}`;
  // Low in the lane, under the note's text where the two meet.
  const cap = (at: number): string => `<line class="interval-cap" x1="${num(at)}" x2="${num(at)}" y1="${y + 13}" y2="${y + 20}" stroke="${color}"/>`;
  const end = interval.to === null ? `<polygon class="interval-open" points="${num(x2)},${y + 17} ${num(x2 - 6)},${y + 14} ${num(x2 - 6)},${y + 20}" fill="${color}"/>` : cap(x2);
  return `<line class="interval" x1="${num(x1)}" x2="${num(x2)}" y1="${y + 17}" y2="${y + 17}" stroke="${color}" stroke-width="2"${interval.to === null ? ' stroke-dasharray="4 2"' : ''}${attrs} data-part="interval"${range}/>${cap(x1)}${end}`;
}

/** A line's label: its name, the ack's and the settle's with their offset (the Stop is at 0). */
function lineName(r: TimelineRow): string {
  if (r.line === 'stop') return r.inferred ? 'Stop (inferred)' : 'Stop';
  return `${r.line ?? ''} ${signedMs(r.start_ms)}`;
}

/**
 * The labels of the Stop, ack and settle lines in the band above the lanes: each beside its line (left of it near the
 * right edge), in the first row where it overlaps no other label. Returns each line's row and the band's height.
 */
function headerRows(rows: TimelineRow[], x: (ms: number) => number): { placed: { r: TimelineRow; row: number; x: number; anchor: 'start' | 'end' }[]; height: number } {
  const taken: [number, number][][] = [];
  const placed = rows.map((r) => {
    const at = x(r.start_ms);
    const w = textWidth(lineName(r), NOTE_SIZE, true);
    const right = at + 3 + w <= WIDTH - 2;
    const [a, b] = right ? [at + 3, at + 3 + w] : [at - 3 - w, at - 3];
    let row = 0;
    while ((taken[row] ?? []).some(([c, d]) => a < d + 4 && c < b + 4)) row++;
    (taken[row] ??= []).push([a, b]);
    return { r, row, x: right ? at + 3 : at - 3, anchor: right ? ('start' as const) : ('end' as const) };
  });
  return { placed, height: 8 + Math.max(1, taken.length) * HEADER_ROW };
}

/** The vertical lines of the Stop, ack and settle (the run's, not the next run's), from their label's row down. */
function stopLines(header: ReturnType<typeof headerRows>, x: (ms: number) => number, bottom: number): string {
  return header.placed
    .map(({ r, row, x: labelX, anchor }) => {
      const color = COLORS[r.line!];
      const dash = r.line === 'stop' ? (r.inferred ? ' stroke-dasharray="6 3"' : '') : r.line === 'ack' ? ' stroke-dasharray="4 2"' : ' stroke-dasharray="1 2"';
      const name = lineName(r);
      const labelY = 4 + (row + 1) * HEADER_ROW - 3;
      return (
        `<line class="${r.line}" x1="${num(x(r.start_ms))}" x2="${num(x(r.start_ms))}" y1="${labelY - 9}" y2="${bottom}" stroke="${color}" stroke-width="${r.line === 'stop' ? 2 : 1.5}"${dash}${data(r)} data-ms="${r.start_ms}"><title>${escapeHtml(`${signedMs(r.start_ms)} ${r.label}`)}</title></line>` +
        `<text class="line-label" x="${num(labelX)}" y="${labelY}" fill="${color}"${anchor === 'end' ? ' text-anchor="end"' : ''}>${escapeHtml(name)}</text>`
      );
    })
    .join('');
}

/** One run's chart: its lanes on its own axis (offsets from the Stop of the run explained). */
function runSvg(t: RunTimeline, next: boolean): string {
  const range = padded(timeRange(t));
  const x = scaleOf(range);
  const own = pickRows(timelineRows(t, next), MAX_LANES);
  // The Stop, ack and settle are lines across the lanes, named in the band above them: no lane of their own.
  const lines = next ? [] : own.shown.filter((r) => r.line !== null);
  const laned = next ? own.shown.map((r) => ({ ...r, line: null })) : own.shown.filter((r) => r.line === null);
  const header = headerRows(lines, x);
  const top = header.height;
  const lanes: string[] = [];
  let y = top + 4;
  // The run's extent, behind its lanes.
  const runEnd = t.end_ms === null ? PLOT_X + PLOT_WIDTH : x(t.end_ms);
  const ownHeight = Math.max(1, laned.length) * LANE;
  lanes.push(
    `<rect class="run" x="${num(x(t.start_ms))}" y="${y}" width="${num(Math.max(1, runEnd - x(t.start_ms)))}" height="${ownHeight}" fill="#f6f8fa" data-kind="run" data-start-ms="${t.start_ms}"${t.end_ms === null ? '' : ` data-end-ms="${t.end_ms}"`}><title>${escapeHtml(`run ${t.run_id}: ${signedMs(t.start_ms)} to ${t.end_ms === null ? 'never ended' : signedMs(t.end_ms)}`)}</title></rect>`,
  );
  for (const r of laned) {
    lanes.push(lane(r, y, x, t.cancelled && !next, next));
    y += LANE;
  }
  if (laned.length === 0) {
    lanes.push(`<text class="more" x="${LABEL_WIDTH}" y="${y + 14}" text-anchor="end">no call or marker exported</text>`);
    y += LANE;
  }
  if (own.left > 0) {
    lanes.push(`<text class="more" x="${LABEL_WIDTH}" y="${y + 14}" text-anchor="end">… ${own.left} more not drawn</text>`);
    y += LANE;
  }
  const height = y + 24;
  const axis = spaced(ticks(range), x)
    .map(
      (tick) =>
        `<line class="grid" x1="${num(x(tick))}" x2="${num(x(tick))}" y1="${top}" y2="${height - 20}"/><text class="tick" x="${num(x(tick))}" y="${height - 6}" text-anchor="middle">${escapeHtml(signedMs(tick))}</text>`,
    )
    .join('');
  const label = next
    ? `The next run of the conversation, ${t.run_id}, which failed after the Stop; offsets from that Stop`
    : `Timeline of run ${t.run_id}: ${t.cancelled ? `Stop at ${t.origin}` : `not cancelled, started ${t.origin}`}; offsets from ${t.cancelled ? 'Stop' : 'its start'}`;
  return (
    `<svg class="timeline${next ? ' next-run' : ''}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeHtml(label)}"` +
    ` data-run-id="${escapeHtml(t.run_id)}" data-trace-id="${escapeHtml(t.trace_id)}" data-origin-ns="${escapeHtml(t.origin_ns)}"` +
    ` data-from-ms="${range.from}" data-to-ms="${range.to}" data-plot-x="${PLOT_X}" data-plot-width="${PLOT_WIDTH}">` +
    `<title>${escapeHtml(label)}</title>${axis}${lanes.join('')}${stopLines(header, x, height - 20)}</svg>`
  );
}

/** The run's timeline as SVG; the next run of its conversation, when it failed after this Stop, as a second chart below. */
export function timelineSvg(t: RunTimeline): string {
  if (t.next_run === null) return runSvg(t, false);
  return `${runSvg(t, false)}<p class="next-run-title">The next run of the conversation, <code>${escapeHtml(t.next_run.run_id)}</code> (trace <code>${escapeHtml(t.next_run.trace_id)}</code>), failed after this Stop: ${escapeHtml(shorten(t.figures.post_cancel_error?.text ?? '', MAX_TEXT_CHARS))}</p>${runSvg(t.next_run, true)}`;
}

/** The timeline's look, for the page's style sheet. */
export const TIMELINE_STYLE = `
svg.timeline { display: block; max-width: 100%; height: auto; }
svg.timeline .lane-label { font-size: 11px; } svg.timeline .alarm { fill: #cf222e; font-weight: 600; }
svg.timeline .note { font-size: 10.5px; fill: #59636e; } svg.timeline .note.alarm { fill: #cf222e; } svg.timeline .note.inside { fill: #fff; font-weight: 600; }
svg.timeline .line-label { font-size: 10.5px; font-weight: 600; } svg.timeline .more, svg.timeline .next-title { fill: #59636e; font-style: italic; }
svg.timeline .lane-label.service { font-style: italic; } svg.timeline .tick { font-size: ${TICK_SIZE}px; } svg.timeline .grid { stroke: #eaeef2; } .next-run-title { font-size: 12px; color: #59636e; margin: 8px 0 2px; }
`;
