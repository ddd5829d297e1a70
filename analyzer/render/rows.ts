import { markdownTable } from './markdown.js';
import { columns } from './text-table.js';

/** Rows of any query in the formats `afterstop query` prints. */
export const ROW_FORMATS = ['table', 'json', 'markdown', 'csv'] as const;
export type RowFormat = (typeof ROW_FORMATS)[number];
export type Row = Record<string, unknown>;

/** DuckDB's BIGINT arrives as bigint: a JSON number when it is exact, else a string. */
const bigints = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v)) : v);
const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v, bigints) : String(v));

/**
 * RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. A text that a spreadsheet
 * would run as a formula (it begins with =, +, -, @, a tab or a carriage return) is prefixed with an
 * apostrophe (OWASP's advice on CSV injection); numbers stay numbers. Control characters other than line
 * breaks and tabs (raw escape sequences) are shown as U+FFFD.
 */
const csvField = (v: unknown): string => {
  let s = text(v);
  if (typeof v === 'string') {
    s = s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '\ufffd');
    if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  }
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** Rows as elements of a JSON array indented by 2, as `JSON.stringify(rows, bigints, 2)` writes them, each after a comma but the very first. */
const jsonElements = (rows: readonly Row[], first: boolean): string => {
  let out = '';
  rows.forEach((row, i) => {
    out += `${first && i === 0 ? '[\n' : ',\n'}  ${JSON.stringify(row, bigints, 2).replace(/\n/g, '\n  ')}`;
  });
  return out;
};

const csvLines = (header: readonly string[], rows: readonly Row[]): string => {
  let out = '';
  for (const r of rows) out += `${header.map((h) => csvField(r[h])).join(',')}\r\n`;
  return out;
};

/** Rows as a table or Markdown, their columns aligned over every row (the header from the first row's keys). */
export function renderAligned(rows: Row[], format: 'table' | 'markdown'): string {
  const header = Object.keys(rows[0] ?? {});
  if (format === 'markdown') {
    return `${markdownTable(
      header,
      rows.map((r) => header.map((h) => text(r[h]))),
    ).join('\n')}\n`;
  }
  return rows.length === 0
    ? '(no rows)\n'
    : `${columns(
        header,
        rows.map((r) => header.map((h) => text(r[h]))),
      ).join('\n')}\n`;
}

/** Where rows are written as text; resolves when the text may be followed by more (a stream's backpressure). */
export type TextOut = (text: string) => Promise<void>;

/**
 * Rows written in `format` as they come, a chunk at a time: JSON (one array, indented as `JSON.stringify(rows,
 * …, 2)` would) and CSV (its header from the columns, so an empty result still has one) as they are read, in
 * bounded memory; a table and Markdown align their columns over every row, so they are held and written at the
 * end.
 */
export function rowWriter(format: RowFormat, out: TextOut): { columns(names: readonly string[]): Promise<void>; rows(chunk: Row[]): Promise<void>; end(): Promise<void> } {
  let header: readonly string[] = [];
  let count = 0;
  const held: Row[] = [];
  return {
    async columns(names) {
      header = names;
      if (format === 'csv') await out(`${names.map(csvField).join(',')}\r\n`);
    },
    async rows(chunk) {
      if (chunk.length === 0) return;
      if (format === 'json') await out(jsonElements(chunk, count === 0));
      else if (format === 'csv') await out(csvLines(header, chunk));
      else for (const row of chunk) held.push(row);
      count += chunk.length;
    },
    async end() {
      if (format === 'json') await out(count === 0 ? '[]\n' : '\n]\n');
      else if (format === 'table' || format === 'markdown') await out(renderAligned(held, format));
    },
  };
}
