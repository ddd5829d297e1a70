/**
 * Text with ANSI SGR escapes (what a terminal program writes, or what `tmux capture-pane -e` gives back) as
 * lines of styled cells, and those cells as HTML. Two encodings of one screen (`\e[31m█\e[39m\e[31m█\e[39m`
 * from the program, `\e[31m██` from tmux) give the same cells, so the screenshot script can check that the
 * terminal showed what the renderer wrote. Only SGR is read: the renderers write no cursor movement.
 */
import { escapeHtml } from '@afterstop/analyzer';

export interface Style {
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
  strike: boolean;
  /** A colour: `n` for palette entry n (0-255), `#rrggbb` for true colour, null for the default. */
  fg: string | null;
  bg: string | null;
}

export interface Cell {
  char: string;
  style: Style;
}

const PLAIN: Style = { bold: false, dim: false, italic: false, underline: false, inverse: false, strike: false, fg: null, bg: null };

/** The extended colour of `38;5;n` / `38;2;r;g;b` starting at codes[i] (the 5 or 2), and how many codes it took. */
function extended(codes: number[], i: number): [string | null, number] {
  if (codes[i] === 5) return [String(codes[i + 1] ?? 0), 2];
  if (codes[i] === 2) return [`#${[codes[i + 1], codes[i + 2], codes[i + 3]].map((c) => (c ?? 0).toString(16).padStart(2, '0')).join('')}`, 4];
  return [null, 0];
}

/** The style after one SGR sequence's parameters. */
function applySgr(style: Style, params: string): Style {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  let s = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    if (c === 0) s = { ...PLAIN };
    else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 7) s.inverse = true;
    else if (c === 9) s.strike = true;
    else if (c === 22) (s.bold = false), (s.dim = false);
    else if (c === 23) s.italic = false;
    else if (c === 24) s.underline = false;
    else if (c === 27) s.inverse = false;
    else if (c === 29) s.strike = false;
    else if (c >= 30 && c <= 37) s.fg = String(c - 30);
    else if (c >= 90 && c <= 97) s.fg = String(c - 90 + 8);
    else if (c === 39) s.fg = null;
    else if (c >= 40 && c <= 47) s.bg = String(c - 40);
    else if (c >= 100 && c <= 107) s.bg = String(c - 100 + 8);
    else if (c === 49) s.bg = null;
    else if (c === 38 || c === 48) {
      const [colour, used] = extended(codes, i + 1);
      if (c === 38) s.fg = colour;
      else s.bg = colour;
      i += used;
    }
  }
  return s;
}

const TOKEN = /\u001b\[([0-9;:]*)m|\u001b\[[0-9;?]*[A-Za-z]|\u001b[()][0-9A-Za-z]|([^\u001b])/gsu;

/**
 * The screen as lines of cells, trailing blanks dropped: a blank's foreground and weight do not show, so a
 * space keeps only what does (background, inverse, underline, strike), and a line ends at its last visible cell.
 */
export function parseAnsi(text: string): Cell[][] {
  const lines: Cell[][] = [[]];
  let style = PLAIN;
  for (const m of text.replace(/\r\n/g, '\n').matchAll(TOKEN)) {
    if (m[1] !== undefined) style = applySgr(style, m[1]);
    else if (m[2] === '\n') lines.push([]);
    else if (m[2] !== undefined && m[2] !== '\r') {
      const blank = m[2] === ' ';
      lines[lines.length - 1]!.push({ char: m[2], style: blank ? { ...PLAIN, bg: style.bg, inverse: style.inverse, underline: style.underline, strike: style.strike } : style });
    }
  }
  const isBlank = (c: Cell): boolean => c.char === ' ' && c.style.bg === null && !c.style.inverse && !c.style.underline && !c.style.strike;
  for (const line of lines) while (line.length > 0 && isBlank(line[line.length - 1]!)) line.pop();
  while (lines.length > 0 && lines[lines.length - 1]!.length === 0) lines.pop();
  return lines;
}

/** The lines as a terminal `columns` wide shows them: a longer line goes on at the start of the next row. */
export function wrapCells(lines: Cell[][], columns: number): Cell[][] {
  const rows: Cell[][] = [];
  for (const line of lines) {
    if (line.length === 0) rows.push([]);
    for (let i = 0; i < line.length; i += columns) rows.push(line.slice(i, i + columns));
  }
  const isBlank = (c: Cell): boolean => c.char === ' ' && JSON.stringify(c.style) === JSON.stringify(PLAIN);
  for (const row of rows) while (row.length > 0 && isBlank(row[row.length - 1]!)) row.pop();
  return rows;
}

/** The cells as comparable text: one line per screen line, each cell its character and its style. */
export function cellsKey(lines: Cell[][]): string {
  return lines.map((line) => line.map((c) => `${c.char}${JSON.stringify(c.style)}`).join('')).join('\n');
}

/** The 16 colours of a dark terminal theme (VS Code's), then the xterm 256-colour cube and grey ramp. */
const BASE16 = ['#000000', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5', '#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#e5e5e5'];
export const TERMINAL_FG = '#cccccc';
export const TERMINAL_BG = '#1e1e1e';

function paletteCss(colour: string): string {
  if (colour.startsWith('#')) return colour;
  const n = Number(colour);
  if (n < 16) return BASE16[n]!;
  if (n < 232) {
    const v = [Math.floor((n - 16) / 36), Math.floor((n - 16) / 6) % 6, (n - 16) % 6].map((x) => (x === 0 ? 0 : 55 + x * 40));
    return `rgb(${v.join(',')})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}

function css(style: Style): string {
  let fg = style.fg === null ? TERMINAL_FG : paletteCss(style.bold && style.fg !== null && Number(style.fg) < 8 ? String(Number(style.fg) + 8) : style.fg);
  let bg = style.bg === null ? null : paletteCss(style.bg);
  if (style.inverse) [fg, bg] = [bg ?? TERMINAL_BG, fg];
  const rules = [`color:${fg}`];
  if (bg !== null) rules.push(`background:${bg}`);
  if (style.bold) rules.push('font-weight:bold');
  if (style.dim) rules.push('opacity:0.6');
  if (style.italic) rules.push('font-style:italic');
  const lines = [style.underline ? 'underline' : '', style.strike ? 'line-through' : ''].filter(Boolean);
  if (lines.length > 0) rules.push(`text-decoration:${lines.join(' ')}`);
  return rules.join(';');
}

/** The cells as the inside of a <pre>: runs of one style in one <span>, every character escaped. */
export function cellsHtml(lines: Cell[][]): string {
  return lines
    .map((line) => {
      let out = '';
      let i = 0;
      while (i < line.length) {
        const key = JSON.stringify(line[i]!.style);
        let run = '';
        while (i < line.length && JSON.stringify(line[i]!.style) === key) run += line[i++]!.char;
        out += key === JSON.stringify(PLAIN) ? escapeHtml(run) : `<span style="${css(line[i - 1]!.style)}">${escapeHtml(run)}</span>`;
      }
      return out;
    })
    .join('\n');
}
