/**
 * The floor under the leak model inside ClickHouse: a bare scan of what the
 * model reads of the exporter's traces table, found in its ClickHouse SQL
 * (queries/clickhouse/spans.sql, the one statement that reads the table): the
 * table's columns it names, and of its Map columns the keys it looks up (a
 * Map column is stored whole, its keys and values as two arrays: a key is
 * found by searching them, row by row). A column the SQL uses whole (a Map
 * passed on, its keys listed) is read whole; one it only looks keys up in is
 * read by those lookups. The keys are followed through aliases
 * (`SpanAttributes AS a`, `a['k']`) and lambdas over arrays of maps
 * (`arrayMap(e -> e['k'], event_attrs)`).
 */
export interface TraceColumn {
  /** As the SQL names it: `SpanName`, `Events.Attributes` (a Nested column's array). */
  name: string;
  type: 'map' | 'map-array' | 'other';
}

export interface ColumnRead {
  column: string;
  type: TraceColumn['type'];
  /** Read whole (every value), beyond the keys looked up. */
  whole: boolean;
  /** The keys looked up, in order of first use. */
  keys: string[];
}

/** The columns of the exporter's DDL (test/fixtures/clickhouse/otel_traces.sql), Nested ones as `Events.Name`. */
export function ddlColumns(ddl: string): TraceColumn[] {
  const columns: TraceColumn[] = [];
  let nested: string | null = null;
  for (const line of ddl.split('\n')) {
    const open = /^\s+(\w+) Nested \($/.exec(line);
    if (open !== null) {
      nested = open[1]!;
      continue;
    }
    if (nested !== null && /^\s+\)/.test(line)) {
      nested = null;
      continue;
    }
    const column = /^\s+(\w+) ([A-Z]\w*)\b/.exec(line);
    if (column === null || column[1] === 'INDEX') continue;
    const [, name = '', type = ''] = column;
    const isMap = type === 'Map';
    columns.push(nested === null ? { name, type: isMap ? 'map' : 'other' } : { name: `${nested}.${name}`, type: isMap ? 'map-array' : 'other' });
  }
  return columns;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A name as an identifier (backquoted or not), not part of a longer one. */
const identifier = (name: string): RegExp => new RegExp(`(?<![\\w.\`])\`?${escapeRegExp(name)}\`?(?![\\w.\`])`, 'g');

/** The text's comments and string literals blanked (same length), so names are found in code only. */
function codeOnly(sql: string): string {
  return sql.replace(/--[^\n]*|'(?:[^'\\]|\\.)*'/g, (m) => (m.startsWith('--') ? ' '.repeat(m.length) : `'${' '.repeat(m.length - 2)}'`));
}

/** The arguments of the call whose `(` is at `open`: their ranges, split at its top-level commas. */
function callArguments(code: string, open: number): { start: number; end: number }[] {
  const args: { start: number; end: number }[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') {
      depth--;
      if (depth === 0) {
        args.push({ start, end: i });
        return args;
      }
    } else if (c === ',' && depth === 1) {
      args.push({ start, end: i });
      start = i + 1;
    }
  }
  throw new Error(`unbalanced call at ${open}`);
}

/** What `sql` reads of the columns of `columns` (see the file's comment). */
export function columnsRead(sql: string, columns: TraceColumn[]): ColumnRead[] {
  const code = codeOnly(sql);
  const byName = new Map(columns.map((c) => [c.name, c]));
  // Names that stand for a column: the column's own, and its aliases (`SpanAttributes AS a`, `` `Events.Attributes` AS event_attrs ``).
  const alias = new Map<string, string>();
  for (const m of code.matchAll(/(`[\w.]+`|\b\w+)\s+AS\s+(\w+)\b(?!\s*\()/g)) {
    const from = m[1]!.replaceAll('`', '');
    const target = byName.has(from) ? from : alias.get(from);
    if (target !== undefined) alias.set(m[2]!, target);
  }
  const reads = new Map<string, ColumnRead>();
  const read = (column: string): ColumnRead => {
    let r = reads.get(column);
    if (r === undefined) {
      r = { column, type: byName.get(column)!.type, whole: false, keys: [] };
      reads.set(column, r);
    }
    return r;
  };
  const addKey = (column: string, key: string): void => {
    const r = read(column);
    if (!r.keys.includes(key)) r.keys.push(key);
  };
  // Ranges whose text is accounted for: alias definitions, the arrays handed to a lambda, lambda bodies' params.
  const handled: { start: number; end: number }[] = [];
  // Lambdas over a column's arrays of maps: each param bound to its array argument; its subscripts are keys of that column.
  for (const m of code.matchAll(/\(\s*(\(\s*\w+(?:\s*,\s*\w+)*\s*\)|\w+)\s*->/g)) {
    const open = m.index;
    const [lambda, ...arrays] = callArguments(code, open);
    const params = m[1]!.replace(/[()\s]/g, '').split(',');
    params.forEach((param, i) => {
      const arg = arrays[i];
      if (arg === undefined) return;
      const argText = code.slice(arg.start, arg.end).trim().replaceAll('`', '');
      const column = byName.has(argText) ? argText : alias.get(argText);
      if (column === undefined || byName.get(column)!.type !== 'map-array') return;
      handled.push(arg);
      // The body, after its params and arrow.
      const bodyStart = code.indexOf('->', lambda!.start) + 2;
      const body = code.slice(bodyStart, lambda!.end);
      for (const use of body.matchAll(new RegExp(`(?<![\\w.])${escapeRegExp(param)}(?![\\w.])(\\s*\\[\\s*'[^']*'\\s*\\])?`, 'g'))) {
        if (use[1] === undefined) read(column).whole = true;
        else addKey(column, /'([^']*)'/.exec(sql.slice(bodyStart + use.index, bodyStart + use.index + use[0].length))![1]!);
      }
    });
  }
  const inHandled = (i: number): boolean => handled.some((h) => i >= h.start && i < h.end);
  // Every other use of a column or its alias: a key looked up, or the column used whole.
  const names = [...byName.keys(), ...alias.keys()];
  for (const name of names) {
    const column = byName.has(name) ? name : alias.get(name)!;
    for (const use of code.matchAll(identifier(name))) {
      if (inHandled(use.index)) continue;
      const after = code.slice(use.index + use[0].length);
      // The definition of an alias of it names the column but reads nothing by itself: its uses do.
      if (byName.has(name) && /^\s+AS\s+\w+/.test(after) && alias.has(/^\s+AS\s+(\w+)/.exec(after)![1]!)) {
        read(column);
        continue;
      }
      // An alias's own definition (`... AS a`).
      if (!byName.has(name) && /AS\s+$/.test(code.slice(Math.max(0, use.index - 8), use.index))) continue;
      const subscript = /^\s*\[\s*'/.exec(after);
      if (subscript !== null && byName.get(column)!.type === 'map') {
        const start = use.index + use[0].length + subscript[0].length;
        addKey(column, sql.slice(start, sql.indexOf("'", start)));
      } else read(column).whole = true;
    }
  }
  // A column named but never used whole nor looked into (only aliased, say) is read whole.
  for (const r of reads.values()) if (!r.whole && r.keys.length === 0) r.whole = true;
  return columns.filter((c) => reads.has(c.name)).map((c) => reads.get(c.name)!);
}

const quote = (name: string): string => (name.includes('.') ? `\`${name}\`` : name);
const literal = (key: string): string => `'${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The floor's statement: every value read, aggregated trivially (max of each), so nothing is skipped and
 * nothing but the reading costs: a column read whole (a Map: its keys and its values), each key looked up.
 */
export function floorScanSql(reads: ColumnRead[], table: string): string {
  const terms: string[] = [];
  for (const r of reads) {
    const c = quote(r.column);
    if (r.whole) {
      if (r.type === 'map') terms.push(`max(mapKeys(${c}))`, `max(mapValues(${c}))`);
      else if (r.type === 'map-array') terms.push(`max(arrayMap(m -> mapKeys(m), ${c}))`, `max(arrayMap(m -> mapValues(m), ${c}))`);
      else terms.push(`max(${c})`);
    }
    for (const k of r.keys) terms.push(r.type === 'map' ? `max(${c}[${literal(k)}])` : `max(arrayMap(m -> m[${literal(k)}], ${c}))`);
  }
  return `SELECT\n  ${terms.join(',\n  ')}\nFROM ${table}`;
}
