import { QueryColumnError } from '../errors.js';
import type { Query, QueryColumn } from '../queries.js';

export { QueryColumnError } from '../errors.js';

/** One value as its declared type: DuckDB gives BIGINT as bigint, ClickHouse 64-bit integers as strings and booleans as 0/1. */
function convert(q: Query, c: QueryColumn, value: unknown): unknown {
  const wrong = (): never => {
    throw new QueryColumnError(
      `${q.file}: column ${c.name} is declared ${c.type}${c.nullable ? '?' : ''}, and the engine gave ${value === null ? 'NULL' : `${typeof value} ${JSON.stringify(String(value)).slice(0, 40)}`}`,
    );
  };
  if (value === null || value === undefined) return c.nullable ? null : wrong();
  switch (c.type) {
    case 'text':
      return typeof value === 'string' ? value : wrong();
    case 'text[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : wrong();
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === '1' || value === 'true') return true;
      if (value === 0 || value === '0' || value === 'false') return false;
      return wrong();
    case 'bigint':
      if (typeof value === 'bigint') return value;
      if ((typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))) return BigInt(value);
      return wrong();
    case 'int':
    case 'float': {
      const n = typeof value === 'bigint' ? Number(value) : typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      if (!Number.isFinite(n) || (c.type === 'int' && !Number.isInteger(n))) return wrong();
      return n;
    }
  }
}

/**
 * An object of the query's columns, each null, whose properties V8 keeps in fixed slots (JSON.parse makes it
 * so): each typed row starts as a copy of it, and its values are set in place. A row built by adding some fifty
 * properties by computed name, one at a time, is kept as a hash table (V8's dictionary mode), slower to read.
 */
const templates = new WeakMap<Query, Record<string, unknown>>();
function rowTemplate(q: Query): Record<string, unknown> {
  let template = templates.get(q);
  if (template === undefined) {
    template = JSON.parse(JSON.stringify(Object.fromEntries(q.columns.map((c) => [c.name, null])))) as Record<string, unknown>;
    templates.set(q, template);
  }
  return template;
}

/**
 * The rows as the query's header declares them: each declared column there, of its type; a missing one is an
 * error, not 0. From whole row objects (the ClickHouse source's), as columns for appendTypedRows.
 */
export function typedRows<T>(q: Query, rows: readonly Record<string, unknown>[]): T[] {
  const out: T[] = [];
  // No row: no column to miss.
  const names = rows.length === 0 ? q.columns.map((c) => c.name) : Object.keys(rows[0]!);
  appendTypedRows(
    q,
    names,
    names.map((name) => rows.map((row) => row[name])),
    rows.length,
    out,
  );
  return out;
}

/**
 * A chunk of the engine's result held as columns (`names[j]`'s values are `columns[j]`, `count` rows), typed as
 * the query's header declares and appended to `out`: no object is made per row but the typed one.
 */
export function appendTypedRows<T>(q: Query, names: readonly string[], columns: readonly (readonly unknown[])[], count: number, out: T[]): void {
  if (q.columns.length === 0) throw new QueryColumnError(`${q.file}: declares no columns (-- @column)`);
  const template = rowTemplate(q);
  const at = q.columns.map((c) => {
    const j = names.indexOf(c.name);
    if (j < 0) throw new QueryColumnError(`${q.file}: the engine gave no column ${c.name} (it gave ${names.join(', ')})`);
    return columns[j]!;
  });
  for (let i = 0; i < count; i++) {
    const row = { ...template };
    for (let k = 0; k < at.length; k++) {
      const c = q.columns[k]!;
      row[c.name] = convert(q, c, at[k]![i]);
    }
    out.push(row as T);
  }
}
