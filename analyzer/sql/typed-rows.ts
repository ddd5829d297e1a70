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

/** The rows as the query's header declares them: each declared column there, of its type; a missing one is an error, not 0. */
export function typedRows<T>(q: Query, rows: readonly Record<string, unknown>[]): T[] {
  if (q.columns.length === 0) throw new QueryColumnError(`${q.file}: declares no columns (-- @column)`);
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const c of q.columns) {
      if (!(c.name in row)) throw new QueryColumnError(`${q.file}: the engine gave no column ${c.name} (it gave ${Object.keys(row).join(', ')})`);
      out[c.name] = convert(q, c, row[c.name]);
    }
    return out as T;
  });
}
