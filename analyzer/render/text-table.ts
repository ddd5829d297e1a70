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

/**
 * `text` in lines of at most `width` characters (code points), broken at spaces; the lines after the first
 * start with `indent` spaces (a hanging indent). A word longer than the room is left whole on its line.
 */
export function wrapWords(text: string, width: number, indent = 0): string[] {
  const pad = ' '.repeat(indent);
  const lead = /^ */.exec(text)?.[0] ?? '';
  const room = (first: boolean): number => Math.max(20, width - (first ? lead.length : indent));
  const lines: string[] = [];
  let line = '';
  for (const word of text.slice(lead.length).split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if ([...candidate].length <= room(lines.length === 0) || line === '') line = candidate;
    else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines.map((l, i) => (i === 0 ? `${lead}${l}` : `${pad}${l}`));
}
