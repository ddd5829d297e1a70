/** A query's parameters as DuckDB types, from the types its header declares (queries/<name>.sql's -- @param lines). */
import { BIGINT, BOOLEAN, DOUBLE, INTEGER, LIST, UBIGINT, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import type { Query } from './queries.js';

const ITEM_TYPES: Record<string, DuckDBType> = { VARCHAR, BIGINT, UBIGINT, INTEGER, DOUBLE, BOOLEAN };

/** A parameter's type as its header declares it (`BIGINT`, `VARCHAR[]`), as DuckDB's; undefined for a name not here. */
export function declaredType(declared: string): DuckDBType | undefined {
  const item = /^(\w+)\[\]$/.exec(declared)?.[1];
  if (item === undefined) return ITEM_TYPES[declared];
  const type = ITEM_TYPES[item];
  return type === undefined ? undefined : LIST(type);
}

/**
 * The types of a query's list parameters, from its header (`VARCHAR[]`): a list
 * value alone is typed by its first item, so a list that starts with NULL, or
 * is empty, would lose its type.
 */
export function listTypes(q: Query): Record<string, DuckDBType> | undefined {
  const types = q.params.flatMap((p) => {
    const type = p.type.endsWith('[]') ? declaredType(p.type) : undefined;
    return type === undefined ? [] : [[p.name, type] as const];
  });
  return types.length > 0 ? Object.fromEntries(types) : undefined;
}
