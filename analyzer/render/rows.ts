import { markdownTable } from './markdown.js';
import { columns } from './text-table.js';

/** Rows of any query in the formats `afterstop query` prints. */
export const ROW_FORMATS = ['table', 'json', 'markdown', 'csv'] as const;
export type RowFormat = (typeof ROW_FORMATS)[number];
export type Row = Record<string, unknown>;

/** DuckDB's BIGINT arrives as bigint: a JSON number when it is exact, else a string. */
const bigints = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v)) : v);
const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v, bigints) : String(v));

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
const csvField = (v: unknown): string => {
  const s = text(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function renderRows(rows: Row[], format: RowFormat): string {
  const header = Object.keys(rows[0] ?? {});
  switch (format) {
    case 'json': return `${JSON.stringify(rows, bigints, 2)}\n`;
    case 'csv': return `${[header.map(csvField).join(','), ...rows.map((r) => header.map((h) => csvField(r[h])).join(','))].join('\r\n')}\r\n`;
    case 'markdown': return `${markdownTable(header, rows.map((r) => header.map((h) => text(r[h])))).join('\n')}\n`;
    case 'table': return rows.length === 0 ? '(no rows)\n' : `${columns(header, rows.map((r) => header.map((h) => text(r[h])))).join('\n')}\n`;
  }
}
