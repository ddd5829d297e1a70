/**
 * The two SQL dialects the leak model runs in, and the few constructs that
 * have no common spelling. Everything else in queries/model/ is SQL both
 * engines read alike: DuckDB, and ClickHouse under the settings of
 * analyzer/clickhouse/source.ts (NULL for an outer join's missing side, a
 * rolled-up key and an aggregate over nothing; a column's name meaning the
 * column). Each construct here is written `@name(args)` in a model file and
 * rendered per dialect by render-query.ts.
 *
 * Why these and no more (each probed on both engines):
 * - `//` is integer division in DuckDB and a comment in ClickHouse;
 * - `round` is half away from zero in DuckDB, half to even on ClickHouse floats;
 * - `left` counts characters in DuckDB, bytes in ClickHouse (a cut é);
 * - ClickHouse string literals take backslash escapes, DuckDB's do not, so a
 *   regular expression is written once and escaped for ClickHouse;
 * - a Map lookup of a missing key is NULL in DuckDB, '' in ClickHouse;
 * - names: starts_with / startsWith, map_keys / mapKeys, JSON paths / JSONExtract*,
 *   unnest / ARRAY JOIN, string_agg ORDER BY / arraySort(groupUniqArray);
 * - the store: DuckDB keeps spans and run facts between ingests (a run's
 *   facts are inserted, its spans updated, for the traces just touched);
 *   ClickHouse builds them per session as temporary tables.
 */
export type Dialect = 'duckdb' | 'clickhouse';

export const DIALECTS: readonly Dialect[] = ['duckdb', 'clickhouse'];

type Renderer = (args: string[]) => string;

export interface Construct {
  /** How many arguments it takes. */
  arity: number;
  /** What it means, for docs/ and the errors of a model file that misuses it. */
  doc: string;
  duckdb: Renderer;
  clickhouse: Renderer;
}

const arg = (args: string[], i: number): string => args[i] ?? '';

/** A single-quoted SQL literal's text, or undefined when `sql` is not one literal. */
export function literalText(sql: string): string | undefined {
  const m = /^'((?:[^']|'')*)'$/.exec(sql.trim());
  return m ? (m[1] ?? '').replaceAll("''", "'") : undefined;
}

const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;
/** A literal for ClickHouse, whose string literals read backslash escapes. */
const chQuote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
/** A pattern argument as ClickHouse needs it: a literal re-escaped, an expression as it is. */
const chPattern = (sql: string): string => {
  const text = literalText(sql);
  return text === undefined ? sql : chQuote(text);
};
/** A JSON field name given as a literal. */
const field = (sql: string, construct: string): string => {
  const text = literalText(sql);
  if (text === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(text)) throw new Error(`@${construct}: the field must be a literal name, not ${sql}`);
  return text;
};
/** ClickHouse's rounding half away from zero, as DuckDB's round. */
function roundHalfAway(x: string, digits: string): string {
  const n = Number(digits);
  if (!Number.isInteger(n) || n < 0 || n > 9) throw new Error(`@round: the digits must be a whole number from 0 to 9, not ${digits}`);
  const scale = n === 0 ? '' : ` * 1e${n}`;
  const unscale = n === 0 ? '' : ` / 1e${n}`;
  return `(sign(${x}) * floor(abs(${x})${scale} + 0.5)${unscale})`;
}

/** ClickHouse's head for a relation of the session: a temporary table (ClickHouse builds what DuckDB keeps or views). */
const chSessionTable = (name: string): string => `CREATE OR REPLACE TEMPORARY TABLE ${name} AS`;

export const CONSTRUCTS: Record<string, Construct> = {
  starts_with: {
    arity: 2,
    doc: 'the text starts with the prefix',
    duckdb: (a) => `starts_with(${arg(a, 0)}, ${arg(a, 1)})`,
    clickhouse: (a) => `startsWith(${arg(a, 0)}, ${arg(a, 1)})`,
  },
  full_match: {
    arity: 2,
    doc: 'the whole text matches the regular expression (RE2), given as a literal or an expression',
    duckdb: (a) => `regexp_full_match(${arg(a, 0)}, ${arg(a, 1)})`,
    clickhouse: (a) => {
      const text = literalText(arg(a, 1));
      return text === undefined ? `match(${arg(a, 0)}, concat('^(?:', ${arg(a, 1)}, ')$'))` : `match(${arg(a, 0)}, ${chQuote(`^(?:${text})$`)})`;
    },
  },
  matches: {
    arity: 2,
    doc: 'some part of the text matches the regular expression (RE2)',
    duckdb: (a) => `regexp_matches(${arg(a, 0)}, ${arg(a, 1)})`,
    clickhouse: (a) => `match(${arg(a, 0)}, ${chPattern(arg(a, 1))})`,
  },
  regexp_replace: {
    arity: 3,
    doc: 'the text with the first match of the regular expression replaced',
    duckdb: (a) => `regexp_replace(${arg(a, 0)}, ${arg(a, 1)}, ${arg(a, 2)})`,
    clickhouse: (a) => `replaceRegexpOne(${arg(a, 0)}, ${chPattern(arg(a, 1))}, ${chPattern(arg(a, 2))})`,
  },
  round: {
    arity: 2,
    doc: 'rounded to the digits, half away from zero',
    duckdb: (a) => `round(${arg(a, 0)}, ${arg(a, 1)})`,
    clickhouse: (a) => roundHalfAway(arg(a, 0), arg(a, 1)),
  },
  left: {
    arity: 2,
    doc: 'the first n characters (not bytes) of the text',
    duckdb: (a) => `left(${arg(a, 0)}, ${arg(a, 1)})`,
    clickhouse: (a) => `leftUTF8(${arg(a, 0)}, ${arg(a, 1)})`,
  },
  try_bigint: {
    arity: 1,
    doc: 'the text as a BIGINT, NULL when it is not one',
    duckdb: (a) => `TRY_CAST(${arg(a, 0)} AS BIGINT)`,
    clickhouse: (a) => `toInt64OrNull(${arg(a, 0)})`,
  },
  try_double: {
    arity: 1,
    doc: 'the text as a DOUBLE, NULL when it is not one',
    duckdb: (a) => `TRY_CAST(${arg(a, 0)} AS DOUBLE)`,
    clickhouse: (a) => `toFloat64OrNull(${arg(a, 0)})`,
  },
  int_div: {
    arity: 2,
    doc: 'integer division, rounded toward zero',
    duckdb: (a) => `((${arg(a, 0)}) // (${arg(a, 1)}))`,
    clickhouse: (a) => `intDiv(${arg(a, 0)}, ${arg(a, 1)})`,
  },
  nearest_ranks: {
    arity: 4,
    doc: 'aggregate: a list of the nearest-rank percentiles p1, p2, p3 (constants) of the non-NULL values (METRICS.md), each the value at rank ceil(p * n) of the sorted values, NULL for none; index it from 1 (`[1]`), as often as needed: each engine computes the aggregate once',
    // DuckDB's quantile_disc is that rank (its index is max(1, n - floor(n - p * n)): checked equal to ceil(p * n) for
    // every n up to 1,600 at 24 values of p) and selects it without sorting a list: steering at 10M spans took
    // 690 ms in the sorts of its list of 1.29M values. Given the three at once it keeps one copy of the values, not
    // three (steering at 1M spans: 85-104 ms against 47-58 ms).
    duckdb: (a) => `quantile_disc(${arg(a, 0)}, [${arg(a, 1)}, ${arg(a, 2)}, ${arg(a, 3)}])`,
    clickhouse: (a) => `[${[1, 2, 3].map((i) => `if(count(${arg(a, 0)}) = 0, NULL, arraySort(groupArray(${arg(a, 0)}))[greatest(1, toUInt64(ceil((${arg(a, i)}) * count(${arg(a, 0)}))))])`).join(', ')}]`,
  },
  sorted_distinct: {
    arity: 2,
    doc: 'aggregate: the distinct values, sorted, joined by the separator',
    // A list sorted once per group: DuckDB's ordered aggregate (string_agg DISTINCT ... ORDER BY) cost twice as much
    // (findings' tokens after Stop, 32,258 runs: 46-56 ms against 17-25 ms). No value at all is NULL, as string_agg's.
    duckdb: (a) => `CASE WHEN count(${arg(a, 0)}) = 0 THEN NULL ELSE array_to_string(list_sort(list_distinct(list(${arg(a, 0)}))), ${arg(a, 1)}) END`,
    clickhouse: (a) => `arrayStringConcat(arraySort(groupUniqArray(${arg(a, 0)})), ${arg(a, 1)})`,
  },
  sorted_distinct_split: {
    arity: 2,
    doc: 'aggregate: the distinct elements of separator-joined lists, sorted, joined by the separator (the separator one literal character)',
    duckdb: (a) => `CASE WHEN count(${arg(a, 0)}) = 0 THEN NULL ELSE array_to_string(list_sort(list_distinct(flatten(list(string_split(${arg(a, 0)}, ${arg(a, 1)}))))), ${arg(a, 1)}) END`,
    clickhouse: (a) => `nullIf(arrayStringConcat(arraySort(arrayDistinct(arrayFilter(x -> x != '', arrayFlatten(groupArray(splitByChar(${arg(a, 1)}, coalesce(${arg(a, 0)}, ''))))))), ${arg(a, 1)}), '')`,
  },
  tuple_get: {
    arity: 2,
    doc: "a tuple's element by its position from 1 (the position a literal), the tuple written (a, b)",
    duckdb: (a) => `struct_extract_at(${arg(a, 0)}, ${arg(a, 1)})`,
    clickhouse: (a) => `tupleElement(${arg(a, 0)}, ${arg(a, 1)})`,
  },
  map_keys: {
    arity: 1,
    doc: "a map's keys",
    duckdb: (a) => `map_keys(${arg(a, 0)})`,
    clickhouse: (a) => `mapKeys(${arg(a, 0)})`,
  },
  map_get: {
    arity: 2,
    doc: "a map's value by key, NULL when absent",
    duckdb: (a) => `${arg(a, 0)}[${arg(a, 1)}]`,
    clickhouse: (a) => `nullIf(${arg(a, 0)}[${arg(a, 1)}], '')`,
  },
  json_string: {
    arity: 2,
    doc: "a JSON object's field as text, NULL when absent (the field a literal name)",
    duckdb: (a) => `json_extract_string(${arg(a, 0)}, ${quote(`$.${field(arg(a, 1), 'json_string')}`)})`,
    clickhouse: (a) => `nullIf(JSONExtractString(${arg(a, 0)}, ${quote(field(arg(a, 1), 'json_string'))}), '')`,
  },
  json_double: {
    arity: 2,
    doc: "a JSON object's field as a DOUBLE (the field a literal name)",
    duckdb: (a) => `CAST(json_extract(${arg(a, 0)}, ${quote(`$.${field(arg(a, 1), 'json_double')}`)}) AS DOUBLE)`,
    clickhouse: (a) => `JSONExtractFloat(${arg(a, 0)}, ${quote(field(arg(a, 1), 'json_double'))})`,
  },
  json_array: {
    arity: 1,
    doc: "a JSON array's elements, each as JSON text",
    duckdb: (a) => `CAST(json_extract(${arg(a, 0)}, '$[*]') AS JSON[])`,
    clickhouse: (a) => `JSONExtractArrayRaw(${arg(a, 0)})`,
  },
  array_join: {
    arity: 2,
    doc: 'in FROM, after the tables: one row per element of the list, the element named by the alias',
    duckdb: (a) => `CROSS JOIN unnest(${arg(a, 0)}) AS u(${arg(a, 1)})`,
    clickhouse: (a) => `ARRAY JOIN ${arg(a, 0)} AS ${arg(a, 1)}`,
  },
  touched: {
    arity: 1,
    doc: "the trace is one the ingest just touched (DuckDB's store, touched_traces); in ClickHouse every trace read",
    duckdb: (a) => `${arg(a, 0)} IN (SELECT trace_id FROM touched_traces)`,
    clickhouse: () => 'true',
  },
  touched_scope: {
    arity: 1,
    doc: "the scope (conversation, run or trace) is one an ingest or a prune just touched (DuckDB's store, touched_scopes); in ClickHouse every scope read",
    duckdb: (a) => `${arg(a, 0)} IN (SELECT scope FROM touched_scopes)`,
    clickhouse: () => 'true',
  },
  assigned_spans: {
    arity: 0,
    doc: "the spans with their runs assigned (assign-runs.sql): the store's spans in DuckDB, the session's report_spans in ClickHouse",
    duckdb: () => 'spans',
    clickhouse: () => 'report_spans',
  },
  session_view: {
    arity: 1,
    doc: "the statement's head for a relation the report's queries read: a view in DuckDB (its parameters read from session variables, sessionVariable), the session's temporary table in ClickHouse",
    duckdb: (a) => `CREATE OR REPLACE TEMP VIEW ${arg(a, 0)} AS`,
    clickhouse: (a) => chSessionTable(arg(a, 0)),
  },
  statement_table: {
    arity: 1,
    doc: "the statement's head for a table of rows a later statement of the facts reads several times: the session's temporary table in both engines (ClickHouse evaluates a CTE again at each reference)",
    duckdb: (a) => `CREATE OR REPLACE TEMP TABLE ${arg(a, 0)} AS`,
    clickhouse: (a) => chSessionTable(arg(a, 0)),
  },
  store_insert: {
    arity: 1,
    doc: "the statement's head for a table of facts: inserted into the store's table in DuckDB, the session's temporary table in ClickHouse",
    duckdb: (a) => `INSERT INTO ${arg(a, 0)} BY NAME`,
    clickhouse: (a) => chSessionTable(arg(a, 0)),
  },
  update_spans: {
    arity: 1,
    doc: "the spans given as (trace_id, span_id, role, run_id, tool_call_id, mcp_side) take that role, run, tool call id and MCP side: updated in the store in DuckDB; in ClickHouse the spans with them are the session's report_spans",
    duckdb: (a) =>
      `UPDATE spans SET role = assigned.role, run_id = assigned.run_id, tool_call_id = assigned.tool_call_id, mcp_side = assigned.mcp_side\nFROM (\n${arg(a, 0)}\n) AS assigned\nWHERE spans.trace_id = assigned.trace_id AND spans.span_id = assigned.span_id`,
    clickhouse: (a) =>
      `CREATE OR REPLACE TEMPORARY TABLE report_spans AS\nSELECT s.* REPLACE (\n    if(assigned.span_id IS NOT NULL, assigned.role, s.role) AS role,\n    if(assigned.span_id IS NOT NULL, assigned.run_id, s.run_id) AS run_id,\n    if(assigned.span_id IS NOT NULL, assigned.tool_call_id, s.tool_call_id) AS tool_call_id,\n    if(assigned.span_id IS NOT NULL, assigned.mcp_side, s.mcp_side) AS mcp_side)\nFROM spans AS s\nLEFT JOIN (\n${arg(a, 0)}\n) AS assigned ON assigned.trace_id = s.trace_id AND assigned.span_id = s.span_id`,
  },
};

/**
 * The session variable a DuckDB view reads a parameter of its query from
 * (`@session_view`): a view cannot take parameters, so the store sets the
 * variable, the value bound, before it creates the view (Store.run).
 */
export const sessionVariable = (queryName: string, param: string): string => `${queryName}_${param}`;

/** The header line of a DuckDB rendering whose parameters are session variables (queries.ts reads it). */
export const BINDS_VARIABLES = '-- @binds variables (a view takes no parameters: each is the session variable <query name>_<parameter>)';

/** A parameter's type as each dialect names it (the model files use DuckDB's; `?` after it: may be NULL). */
export function paramType(type: string, dialect: Dialect): string {
  const nullable = type.endsWith('?');
  const base = nullable ? type.slice(0, -1) : type;
  if (dialect === 'duckdb') return base;
  const map: Record<string, string> = { BIGINT: 'Int64', UBIGINT: 'UInt64', VARCHAR: 'String', DOUBLE: 'Float64', BOOLEAN: 'Bool' };
  // A type with no DuckDB name here is ClickHouse's own already (a ClickHouse-only file: Identifier, Int64).
  const ch = map[base] ?? base;
  return nullable ? `Nullable(${ch})` : ch;
}

/** The index after the SQL string literal that starts at i ('' inside it is a quote). */
export function skipString(sql: string, i: number, file: string): number {
  let j = i + 1;
  for (;;) {
    const k = sql.indexOf("'", j);
    if (k < 0) throw new Error(`${file}: a string literal is not closed`);
    if (sql[k + 1] === "'") j = k + 2;
    else return k + 1;
  }
}

const QUALIFIED = /^((?:\s|--[^\n]*\n)*)([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(\s*)$/;
const ALIAS = /\bAS\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/i;
const BARE = /^(?:\s|--[^\n]*\n)*(?:[A-Za-z_][A-Za-z0-9_]*\.)?([A-Za-z_][A-Za-z0-9_]*)\s*$/;

/** A select list's items with each bare qualified column named by its column (unless the name is taken). */
function nameItems(items: string[]): string[] {
  const taken = new Set<string>();
  for (const item of items) {
    const code = item.replace(/--[^\n]*/g, '');
    const named = ALIAS.exec(code)?.[1] ?? BARE.exec(code)?.[1];
    if (named !== undefined && !QUALIFIED.test(item)) taken.add(named.toLowerCase());
  }
  return items.map((item) => {
    const m = QUALIFIED.exec(item);
    if (!m) return item;
    const column = m[3] ?? '';
    if (taken.has(column.toLowerCase())) return item;
    taken.add(column.toLowerCase());
    return `${m[1]}${m[2]}.${column} AS ${column}${m[4]}`;
  });
}

/**
 * ClickHouse names a column selected from a join by its qualified name
 * (`b.trace_id`), DuckDB by its own (`trace_id`): in ClickHouse's rendering
 * each bare qualified column of a select list is given its own name, as
 * DuckDB gives it, so that both engines' tables and rows have the same
 * columns. (A name already in the list is left: a UNION's later branch.)
 */
export function nameQualifiedColumns(sql: string, file = 'the query'): string {
  let out = '';
  // One frame per open SELECT list: where its items started, at which depth.
  let depth = 0;
  const lists: { depth: number; start: number; items: string[]; itemStart: number }[] = [];
  const closeList = (end: number): void => {
    const list = lists.pop();
    if (!list) return;
    list.items.push(out.slice(list.itemStart, end));
    out = out.slice(0, list.start) + nameItems(list.items).join(',') + out.slice(end);
  };
  for (let i = 0; i < sql.length; ) {
    const c = sql[i] ?? '';
    if (c === "'") {
      const e = skipString(sql, i, file);
      out += sql.slice(i, e);
      i = e;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      const e = nl < 0 ? sql.length : nl;
      out += sql.slice(i, e);
      i = e;
      continue;
    }
    const top = lists[lists.length - 1];
    if (c === '(') {
      depth++;
      out += c;
      i++;
      continue;
    }
    if (c === ')') {
      while (lists.length > 0 && (lists[lists.length - 1]?.depth ?? -1) >= depth) closeList(out.length);
      depth--;
      out += c;
      i++;
      continue;
    }
    if (c === ',' && top && top.depth === depth) {
      top.items.push(out.slice(top.itemStart, out.length));
      out += c;
      i++;
      top.itemStart = out.length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i, i + 64))?.[0];
    if (word && !/[A-Za-z0-9_.]/.test(sql[i - 1] ?? '')) {
      const upper = word.toUpperCase();
      if (top && top.depth === depth && ['FROM', 'UNION', 'ORDER', 'GROUP', 'WHERE', 'LIMIT', 'HAVING', 'QUALIFY', 'WINDOW'].includes(upper)) closeList(out.length);
      out += word;
      i += word.length;
      if (upper === 'SELECT') {
        const distinct = /^\s+DISTINCT\b/i.exec(sql.slice(i));
        if (distinct) {
          out += distinct[0];
          i += distinct[0].length;
        }
        lists.push({ depth, start: out.length, items: [], itemStart: out.length });
      }
      continue;
    }
    out += c;
    i++;
  }
  while (lists.length > 0) closeList(out.length);
  return out;
}
