import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_TRACES_SCHEMA, tracesTableConstructs } from '../clickhouse/traces-table-constructs.js';
import { queriesDir } from '../queries.js';
import { DIALECTS, type Dialect } from './dialect.js';
import { modelDialects, parseFragments, renderQuery, type ExtraConstructs, type Fragment } from './render-query.js';

/**
 * The leak model's SQL, written once in queries/model/ and rendered for each
 * engine: DuckDB's files into queries/, ClickHouse's into queries/clickhouse/.
 * The rendered files are committed (read them as they run);
 * test/analyzer/sql/model-queries.test.ts fails when one is stale.
 */
export interface RenderedQuery {
  /** The model file, without .sql. */
  model: string;
  dialect: Dialect;
  /** Where it goes, relative to queries/. */
  path: string;
  text: string;
}

export const modelDir = (): string => path.join(queriesDir(), 'model');

/** Where a dialect's rendering of a model file goes, relative to queries/. */
const renderedPath = (file: string, dialect: Dialect): string => (dialect === 'duckdb' ? `${file}.sql` : `clickhouse/${file}.sql`);

export function fragments(): Map<string, Fragment> {
  return parseFragments(fs.readFileSync(path.join(modelDir(), 'fragments.sql'), 'utf8'));
}

/**
 * The constructs a model file's committed rendering is made with, where it is
 * rendered again for another shape at run time (spans.sql: the traces table's
 * default shape, Map attributes and a ScopeName column).
 */
const committedConstructs: Record<string, ExtraConstructs> = {
  spans: tracesTableConstructs(DEFAULT_TRACES_SCHEMA),
  // DuckDB's span_rows: a span's attributes as the lists of keys ks and values vs (attr, macros.sql).
  macros: { span_attr: { arity: 1, render: ([k = '']) => `attr(ks, vs, ${k})` } },
};

/** Every model file rendered for each of its dialects. */
export function renderModel(): RenderedQuery[] {
  const dir = modelDir();
  const shared = fragments();
  const out: RenderedQuery[] = [];
  for (const name of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql') && f !== 'fragments.sql')
    .sort()) {
    const file = name.slice(0, -'.sql'.length);
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    for (const dialect of DIALECTS.filter((d) => modelDialects(text).includes(d))) {
      out.push({ model: file, dialect, path: renderedPath(file, dialect), text: renderQuery({ file, text }, dialect, shared, committedConstructs[file] ?? {}) });
    }
  }
  return out;
}

/** One model file rendered for a dialect, with the constructs the caller adds (a rendering that is not committed). */
export function renderModelFile(file: string, dialect: Dialect, extra: ExtraConstructs = {}): string {
  const text = fs.readFileSync(path.join(modelDir(), `${file}.sql`), 'utf8');
  return renderQuery({ file, text }, dialect, fragments(), extra);
}
