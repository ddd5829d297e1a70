/** Plain-text columns for the terminal and the `query` command. */

/**
 * Characters that change what a reader sees without being seen: C0 and C1 controls (an ANSI escape in a tool
 * name could rewrite the terminal), bidirectional overrides and isolates (they reorder the text around them:
 * "Trojan Source"), zero-width characters and the BOM.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** At most this many characters of one cell are shown; the rest is cut, marked with an ellipsis. */
export const MAX_CELL_CHARS = 200;

/**
 * Trace content can hold anything: invisible and control characters are shown as U+FFFD, line breaks as
 * spaces, and a cell longer than {@link MAX_CELL_CHARS} is cut (a 100,000-character name would make the
 * table megabytes wide). The JSON and Arrow outputs keep the values whole.
 */
export function terminalSafe(value: string): string {
  const safe = terminalLine(value);
  if (safe.length <= MAX_CELL_CHARS) return safe;
  const chars = [...safe];
  return chars.length <= MAX_CELL_CHARS ? safe : `${chars.slice(0, MAX_CELL_CHARS - 1).join('')}…`;
}

/** One line a terminal can show, whole: line breaks as spaces, control and invisible characters as U+FFFD. */
export function terminalLine(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').replace(INVISIBLE, '\ufffd');
}

/** Rows as aligned columns (two spaces apart), header first; `style` wraps a cell after padding. */
export function columns(header: string[], rows: string[][], style: (cell: string, row: number, column: number) => string = (c) => c): string[] {
  const all = [header, ...rows].map((r) => r.map(terminalSafe));
  const widths = header.map((_, i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)));
  return all.map((r, rowIndex) =>
    r
      .map((cell, i) => style(i === r.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length), rowIndex - 1, i))
      .join('  ')
      .trimEnd(),
  );
}
