/**
 * Small SVG charts for the HTML report, rendered here as markup: the page has
 * no script and no charting library. Every string that reaches the markup goes
 * through {@link escapeHtml}; every bar is a `<rect data-value>` with a
 * `<title>` that names it. Charts only lay out the values they are given
 * (scales, stacking); they compute no figure of the report.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape `& < > " '` so that a string is safe as HTML (or SVG) text and inside a quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** A categorical palette (Tableau 10), for series without a colour of their own. */
export const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'] as const;

/** The colour of the i-th series of the palette (it repeats past ten). */
export const paletteColor = (i: number): string => PALETTE[i % PALETTE.length] ?? '#888888';

/** One piece of a bar: its value, its colour and the text of its tooltip (`<title>`). */
export interface Segment {
  value: number;
  color: string;
  title: string;
}

/** A bar (a column, or a row of a horizontal chart) made of stacked segments. */
export interface Bar {
  /** Shortened when long; the tooltip of a horizontal bar's label gives it whole. */
  label: string;
  segments: Segment[];
  /** Text written at the end of a horizontal bar (the row's figure, already formatted). */
  total?: string;
}

/** What every chart is given: its name (data-chart), its accessible description and its bars. */
export interface ChartOptions {
  name: string;
  label: string;
  bars: Bar[];
  /** Formats a value for the axis. */
  format: (value: number) => string;
  /** Counts: axis ticks are whole numbers. */
  integer?: boolean;
}

const WIDTH = 640;
const EMPTY_TEXT = 'nothing in this window';
/** Rounded coordinates keep the markup short. */
const r = (n: number): string => String(Math.round(n * 100) / 100);

/** About how wide a label is at the charts' font size (10.5px), in viewBox units. */
const textWidth = (label: string): number => label.length * 6;

/** A label on one line, or on two (split at its last space) when it is wider than `room`. */
function splitLabel(label: string, room: number): string[] {
  const space = label.lastIndexOf(' ');
  return textWidth(label) + 6 <= room || space < 0 ? [label] : [label.slice(0, space), label.slice(space + 1)];
}

/** True when no bar has a segment above zero. */
export const isEmpty = (bars: Bar[]): boolean => !bars.some((b) => b.segments.some((s) => s.value > 0));

/** The container of a chart with no data: the text "nothing in this window", with the chart's data-chart name. */
export function emptyChart(name: string): string {
  return `<p class="chart-empty" data-chart="${escapeHtml(name)}">${EMPTY_TEXT}</p>`;
}

/** Top of the axis and its step: 4 steps of 1, 2, 2.5 or 5 × a power of ten that cover `max`. */
function niceScale(max: number, integer: boolean): { top: number; step: number } {
  if (!(max > 0)) return { top: 1, step: 0.25 };
  const raw = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  let step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  if (integer) step = Math.max(1, Math.ceil(step));
  return { top: step * Math.ceil(max / step - 1e-9), step };
}

function rect(x: number, y: number, w: number, h: number, s: Segment): string {
  return `<rect x="${r(x)}" y="${r(y)}" width="${r(w)}" height="${r(h)}" fill="${escapeHtml(s.color)}" data-value="${s.value}"><title>${escapeHtml(s.title)}</title></rect>`;
}

function svg(name: string, label: string, height: number, body: string[]): string {
  return `<svg class="chart" data-chart="${escapeHtml(name)}" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${WIDTH} ${r(height)}" width="100%" preserveAspectRatio="xMinYMin meet">${body.join('')}</svg>`;
}

/** Shorten a label to `max` characters (with an ellipsis). */
export function shorten(label: string, max: number): string {
  return label.length <= max ? label : `${label.slice(0, max - 1)}…`;
}

/**
 * Vertical columns, one per bar, segments stacked bottom up, with a value
 * axis on the left and the bars' labels below (thinned out when crowded).
 * An empty chart is {@link emptyChart}.
 */
export function columnChart(o: ChartOptions): string {
  if (isEmpty(o.bars)) return emptyChart(o.name);
  const height = 240;
  const left = 72;
  const right = 8;
  const top = 10;
  const bottom = 34;
  const plotW = WIDTH - left - right;
  const plotH = height - top - bottom;
  const max = Math.max(...o.bars.map((b) => b.segments.reduce((sum, s) => sum + Math.max(0, s.value), 0)));
  const { top: axisTop, step } = niceScale(max, o.integer ?? false);
  const y = (v: number): number => top + plotH - (v / axisTop) * plotH;
  const body: string[] = [];
  for (let k = 0; k * step <= axisTop + step / 2; k++) {
    const v = k * step;
    body.push(`<line class="grid" x1="${left}" x2="${WIDTH - right}" y1="${r(y(v))}" y2="${r(y(v))}"/>`);
    body.push(`<text class="tick" x="${left - 6}" y="${r(y(v) + 4)}" text-anchor="end">${escapeHtml(o.format(v))}</text>`);
  }
  const slot = plotW / o.bars.length;
  const barW = Math.min(56, slot * 0.75);
  // A label that is wider than its column goes on two lines (at its last space); labels that still
  // do not fit are thinned out: every n-th is written (the tooltips name every bar).
  const lines = o.bars.map((b) => splitLabel(shorten(b.label, 14), slot));
  const widest = Math.max(...lines.flat().map(textWidth));
  const every = Math.max(1, Math.ceil((widest + 6) / slot));
  o.bars.forEach((bar, i) => {
    const x = left + slot * i + (slot - barW) / 2;
    let base = 0;
    for (const s of bar.segments) {
      const v = Math.max(0, s.value);
      body.push(rect(x, y(base + v), barW, y(base) - y(base + v), s));
      base += v;
    }
    if (i % every === 0) {
      const cx = r(x + barW / 2);
      const tspans = (lines[i] ?? []).map((line, n) => `<tspan x="${cx}" dy="${n === 0 ? 0 : 12}">${escapeHtml(line)}</tspan>`);
      body.push(`<text class="label" x="${cx}" y="${height - bottom + 14}" text-anchor="middle">${tspans.join('')}</text>`);
    }
  });
  body.push(`<line class="axis" x1="${left}" x2="${WIDTH - right}" y1="${r(y(0))}" y2="${r(y(0))}"/>`);
  return svg(o.name, o.label, height, body);
}

/**
 * Horizontal bars, one row per bar, segments stacked left to right, the
 * row's label on the left and its `total` text on the right. An empty chart
 * is {@link emptyChart}.
 */
export function barChart(o: ChartOptions): string {
  if (isEmpty(o.bars)) return emptyChart(o.name);
  const left = 220;
  const right = 80;
  const rowH = 26;
  const barH = 16;
  const top = 6;
  const plotW = WIDTH - left - right;
  const height = top * 2 + rowH * o.bars.length;
  const max = Math.max(...o.bars.map((b) => b.segments.reduce((sum, s) => sum + Math.max(0, s.value), 0)));
  const scale = max > 0 ? plotW / max : 0;
  const body: string[] = [];
  o.bars.forEach((bar, i) => {
    const y = top + rowH * i + (rowH - barH) / 2;
    body.push(`<text class="label" x="${left - 8}" y="${r(y + barH / 2 + 4)}" text-anchor="end"><title>${escapeHtml(bar.label)}</title>${escapeHtml(shorten(bar.label, 34))}</text>`);
    let x = left;
    for (const s of bar.segments) {
      const w = Math.max(0, s.value) * scale;
      body.push(rect(x, y, w, barH, s));
      x += w;
    }
    if (bar.total !== undefined) body.push(`<text class="tick" x="${r(x + 6)}" y="${r(y + barH / 2 + 4)}">${escapeHtml(bar.total)}</text>`);
  });
  body.push(`<line class="axis" x1="${left}" x2="${left}" y1="${top}" y2="${height - top}"/>`);
  return svg(o.name, o.label, height, body);
}

/** A legend: a colour swatch and a label per series. */
export function legend(items: { label: string; color: string }[]): string {
  if (items.length === 0) return '';
  const li = items.map((i) => `<li><span class="swatch" style="background:${escapeHtml(i.color)}"></span>${escapeHtml(i.label)}</li>`);
  return `<ul class="legend">${li.join('')}</ul>`;
}
