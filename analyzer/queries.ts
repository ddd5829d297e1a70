import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A result column's type as a query file declares it (`-- @column name type`), `?` after it: may be NULL. */
export type ColumnType = 'text' | 'int' | 'bigint' | 'float' | 'bool' | 'text[]';
export const COLUMN_TYPES: readonly ColumnType[] = ['text', 'int', 'bigint', 'float', 'bool', 'text[]'];

export interface QueryColumn {
  name: string;
  type: ColumnType;
  nullable: boolean;
}

/** A query of `queries/`, with what its header says. */
export interface Query {
  name: string;
  description: string;
  params: { name: string; type: string; description: string }[];
  returns: string;
  /** The columns of its rows, in order (none: it returns no rows, or they are not declared). */
  columns: QueryColumn[];
  sql: string;
  file: string;
  /** Its parameters are session variables it reads (a DuckDB view, `-- @binds variables`), set before it runs. */
  bindsVariables: boolean;
}

/** The queries folder: the analyzer package's `queries/`, one level above `dist/` when built, beside this file in the source tree. */
export function queriesDir(): string {
  for (const candidate of ['../queries/', './queries/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (fs.existsSync(`${dir}schema.sql`)) return dir;
  }
  throw new Error('afterstop: the queries folder is missing from this installation');
}

/** Parse the `-- @name`, `-- @description`, `-- @param`, `-- @returns` header of a query file. */
export function parseQuery(text: string, file: string): Query {
  const header = (tag: string): string[] => [...text.matchAll(new RegExp(`^--\\s*@${tag}\\s+(.*)$`, 'gm'))].map((m) => (m[1] ?? '').trim());
  const name = header('name')[0];
  if (!name) throw new Error(`${file}: no -- @name header`);
  return {
    name,
    description: header('description')[0] ?? '',
    params: header('param').map((p) => {
      const [paramName = '', type = '', ...rest] = p.split(/\s+/);
      return { name: paramName, type, description: rest.join(' ') };
    }),
    returns: header('returns')[0] ?? '',
    columns: header('column').map((c) => {
      const [columnName = '', declared = ''] = c.split(/\s+/);
      const type = declared.replace(/\?$/, '') as ColumnType;
      if (!COLUMN_TYPES.includes(type)) throw new Error(`${file}: column ${columnName}: no type ${declared} (${COLUMN_TYPES.join(', ')}, ? for NULL)`);
      return { name: columnName, type, nullable: declared.endsWith('?') };
    }),
    sql: text,
    file,
    bindsVariables: header('binds')[0]?.startsWith('variables') ?? false,
  };
}

const cache = new Map<string, Query>();

/** The query in `queries/<file>.sql`. */
export function query(file: string): Query {
  let found = cache.get(file);
  if (!found) {
    const path = `${queriesDir()}${file}.sql`;
    found = parseQuery(fs.readFileSync(path, 'utf8'), path);
    cache.set(file, found);
  }
  return found;
}

/** Every query of `queries/`, by file name (without .sql). */
export function listQueries(): { file: string; query: Query }[] {
  return fs
    .readdirSync(queriesDir())
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ file: f.slice(0, -'.sql'.length), query: query(f.slice(0, -'.sql'.length)) }));
}

/**
 * A query that returns rows and changes nothing: its header's @returns does
 * not start with "nothing", and its statement is a SELECT (a DELETE ...
 * RETURNING or a COPY ... RETURN_FILES returns rows too, and changes the store).
 */
export function isReadOnly(q: Query): boolean {
  if (/^nothing\b/.test(q.returns)) return false;
  const statement = q.sql.replace(/^\s*--.*$/gm, '').trimStart();
  return /^(SELECT|WITH)\b/i.test(statement) && !/^WITH\b[\s\S]*\b(INSERT|DELETE|UPDATE)\b/i.test(statement);
}
