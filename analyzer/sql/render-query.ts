import { parseQuery } from '../queries.js';
import { BINDS_VARIABLES, CONSTRUCTS, nameQualifiedColumns, paramType, sessionVariable, skipString, type Dialect } from './dialect.js';

/**
 * A model file (queries/model/) rendered for one dialect: its header with the
 * dialect's parameter types, and its body with each `@construct(...)` and
 * `@fragment(...)` expanded and each `$param` written as the dialect binds it.
 * Comments and string literals pass through untouched.
 */
export interface Fragment {
  name: string;
  params: string[];
  body: string;
}

export interface ModelFile {
  /** The file name without .sql. */
  file: string;
  text: string;
}

/** Which dialects a model file is for: `-- @dialects duckdb` limits it; both by default. */
export function modelDialects(text: string): Dialect[] {
  const m = /^--\s*@dialects\s+(.+)$/m.exec(text);
  if (!m) return ['duckdb', 'clickhouse'];
  const named = (m[1] ?? '').trim().split(/\s+/);
  for (const d of named) if (d !== 'duckdb' && d !== 'clickhouse') throw new Error(`@dialects: no dialect ${d}`);
  return named as Dialect[];
}

/** The fragments of queries/model/fragments.sql: `-- @fragment name(a, b)` then its body, up to the next. */
export function parseFragments(text: string): Map<string, Fragment> {
  const fragments = new Map<string, Fragment>();
  const parts = text.split(/^--\s*@fragment\s+/m).slice(1);
  for (const part of parts) {
    const m = /^([a-z_][a-z0-9_]*)\(([^)]*)\)\s*$/m.exec(part.split('\n', 1)[0] ?? '');
    if (!m) throw new Error(`fragments.sql: a fragment's head must be name(params), not ${part.split('\n', 1)[0]}`);
    const body = part
      .split('\n')
      .slice(1)
      .filter((l) => !/^\s*--/.test(l))
      .join('\n')
      .trim();
    const name = m[1] ?? '';
    // A body is put inside a line: a comment in it would comment out the rest of that line.
    if (/--/.test(body.replace(/'(?:[^']|'')*'/g, "''"))) throw new Error(`fragments.sql: ${name}'s body holds a comment; put it above the body`);
    if (CONSTRUCTS[name] !== undefined) throw new Error(`fragments.sql: ${name} is a construct's name`);
    fragments.set(name, {
      name,
      params: (m[2] ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
      body,
    });
  }
  return fragments;
}

/** Constructs a caller adds for one rendering (analyzer/clickhouse/traces-schema.ts: the traces table's shape). */
export type ExtraConstructs = Record<string, { arity: number; render: (args: string[]) => string }>;

interface Context {
  extra: ExtraConstructs;
  dialect: Dialect;
  params: Map<string, string>;
  fragments: Map<string, Fragment>;
  file: string;
  /** DuckDB's rendering of a view (@session_view): each $param is read from its session variable, named after this query. */
  variablesOf?: string | undefined;
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;

/** The arguments of the call whose '(' is at i, split at top-level commas, and the index after its ')'. */
function callArgs(sql: string, i: number, file: string): { args: string[]; inner: string; end: number } {
  const args: string[] = [];
  let depth = 0;
  let start = i + 1;
  for (let j = i; j < sql.length; ) {
    const c = sql[j];
    if (c === "'") {
      j = skipString(sql, j, file);
      continue;
    }
    if (c === '-' && sql[j + 1] === '-') {
      const nl = sql.indexOf('\n', j);
      j = nl < 0 ? sql.length : nl;
      continue;
    }
    if (c === '(' || c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === ')') {
      depth--;
      if (depth === 0) {
        const last = sql.slice(start, j);
        if (args.length > 0 || last.trim() !== '') args.push(last);
        return { args: args.map((a) => a.trim()), inner: sql.slice(i + 1, j).trim(), end: j + 1 };
      }
    } else if (c === ',' && depth === 1) {
      args.push(sql.slice(start, j));
      start = j + 1;
    }
    j++;
  }
  throw new Error(`${file}: a call is not closed`);
}

/** A fragment's body with its parameters replaced by the arguments (each in parentheses unless plain). */
function substitute(fragment: Fragment, args: string[], file: string): string {
  if (args.length !== fragment.params.length) throw new Error(`${file}: @${fragment.name} takes ${fragment.params.length} arguments, not ${args.length}`);
  const plain = /^(?:[A-Za-z_][A-Za-z0-9_.]*|'(?:[^']|'')*'|\d+(?:\.\d+)?)$/;
  let out = '';
  for (let i = 0; i < fragment.body.length; ) {
    const c = fragment.body[i] ?? '';
    if (c === "'") {
      const e = skipString(fragment.body, i, file);
      out += fragment.body.slice(i, e);
      i = e;
      continue;
    }
    IDENT.lastIndex = i;
    const m = /[A-Za-z_]/.test(c) && !/[A-Za-z0-9_.@$]/.test(fragment.body[i - 1] ?? '') ? IDENT.exec(fragment.body) : null;
    if (m) {
      const at = fragment.params.indexOf(m[0]);
      if (at >= 0) {
        const a = args[at] ?? '';
        out += plain.test(a) ? a : `(${a})`;
      } else out += m[0];
      i += m[0].length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** The body rendered for the dialect. */
function renderBody(sql: string, ctx: Context): string {
  let out = '';
  for (let i = 0; i < sql.length; ) {
    const c = sql[i] ?? '';
    if (c === "'") {
      const e = skipString(sql, i, ctx.file);
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
    if (c === '$' || c === '@') {
      IDENT.lastIndex = i + 1;
      const m = IDENT.exec(sql);
      if (m && c === '$') {
        const type = ctx.params.get(m[0]);
        if (type === undefined) throw new Error(`${ctx.file}: $${m[0]} is not declared by a -- @param line`);
        if (ctx.dialect === 'clickhouse') out += `{${m[0]}:${paramType(type, 'clickhouse')}}`;
        else out += ctx.variablesOf === undefined ? `$${m[0]}` : `getvariable('${sessionVariable(ctx.variablesOf, m[0])}')`;
        i = i + 1 + m[0].length;
        continue;
      }
      if (m && c === '@') {
        const name = m[0];
        let j = i + 1 + name.length;
        const extra = ctx.extra[name];
        const construct = CONSTRUCTS[name] ?? (extra ? { arity: extra.arity, duckdb: extra.render, clickhouse: extra.render, doc: '' } : undefined);
        const fragment = ctx.fragments.get(name);
        let args: string[] = [];
        if (sql[j] === '(') {
          const call = callArgs(sql, j, ctx.file);
          // A construct of one argument takes all that is between its parentheses (a statement has commas of its own).
          const raw = construct?.arity === 1 ? [call.inner] : call.args;
          args = raw.map((a) => renderBody(a, ctx));
          j = call.end;
        }
        if (construct) {
          if (args.length !== construct.arity) throw new Error(`${ctx.file}: @${name} takes ${construct.arity} arguments, not ${args.length}`);
          out += construct[ctx.dialect](args);
        } else if (fragment) {
          // A body of several lines keeps the indentation of the line it is called on.
          const indent = /[^\n]*$/.exec(out)?.[0].match(/^\s*/)?.[0] ?? '';
          out += renderBody(substitute(fragment, args, ctx.file), ctx).replaceAll('\n', `\n${indent}`);
        } else throw new Error(`${ctx.file}: no construct or fragment @${name}`);
        i = j;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** The first line of every rendered file: where it comes from. */
export const generatedLine = (file: string): string => `-- Generated from queries/model/${file}.sql by \`npm run queries\` (analyzer/sql/): edit that file, not this one.`;

/** A model file rendered for one dialect. */
export function renderQuery(model: ModelFile, dialect: Dialect, fragments: Map<string, Fragment>, extra: ExtraConstructs = {}): string {
  const lines = model.text.split('\n');
  const headerEnd = lines.findIndex((l) => !/^--/.test(l));
  const header = lines.slice(0, headerEnd < 0 ? lines.length : headerEnd).filter((l) => !/^--\s*@dialects\b/.test(l));
  const params = new Map<string, string>();
  const renderedHeader = header.map((l) => {
    const m = /^(--\s*@param\s+)(\S+)(\s+)(\S+)(.*)$/.exec(l);
    if (!m) return l;
    params.set(m[2] ?? '', m[4] ?? '');
    return `${m[1]}${m[2]}${m[3]}${paramType(m[4] ?? '', dialect)}${m[5]}`;
  });
  const source = lines.slice(headerEnd < 0 ? lines.length : headerEnd).join('\n');
  // A DuckDB view takes no parameters: its query's are session variables, named after the query (@name).
  const view = dialect === 'duckdb' && params.size > 0 && /@session_view\(/.test(source);
  const variablesOf = view ? parseQuery(model.text, `queries/model/${model.file}.sql`).name : undefined;
  if (view) renderedHeader.push(BINDS_VARIABLES);
  let body = renderBody(source, { dialect, params, fragments, extra, file: `queries/model/${model.file}.sql`, variablesOf });
  body = body.trimEnd();
  // ClickHouse takes one statement per request, without the closing semicolon DuckDB's files carry.
  if (dialect === 'clickhouse') body = nameQualifiedColumns(body.replace(/;$/, ''), `queries/model/${model.file}.sql`);
  else if (!body.endsWith(';')) body += ';';
  return `${[generatedLine(model.file), ...renderedHeader].join('\n')}\n${body}\n`;
}
