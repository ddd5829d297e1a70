/** Plain-text columns for the terminal and the `query` command. */

/**
 * Trace content can hold anything: control characters (an ANSI escape in a
 * tool name could rewrite the terminal) are shown as U+FFFD, line breaks as
 * spaces.
 */
export function terminalSafe(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
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
