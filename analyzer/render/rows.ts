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

export function renderRows(rows: Row[], format: RowFormat): string {
  const header = Object.keys(rows[0] ?? {});
  switch (format) {
    case 'json':
      return `${JSON.stringify(rows, bigints, 2)}\n`;
    case 'csv':
      return `${[header.map(csvField).join(','), ...rows.map((r) => header.map((h) => csvField(r[h])).join(','))].join('\r\n')}\r\n`;
    case 'markdown':
      return `${markdownTable(
        header,
        rows.map((r) => header.map((h) => text(r[h]))),
      ).join('\n')}\n`;
    case 'table':
      return rows.length === 0
        ? '(no rows)\n'
        : `${columns(
            header,
            rows.map((r) => header.map((h) => text(r[h]))),
          ).join('\n')}\n`;
  }
}
