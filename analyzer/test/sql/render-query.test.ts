import { describe, expect, it } from 'vitest';
import { nameQualifiedColumns } from '../../sql/dialect.js';
import { modelDialects, parseFragments, renderQuery } from '../../sql/render-query.js';
import { parseQuery } from '../../queries.js';

const fragments = parseFragments(`-- @fragment twice(x)
-- a comment above the body
x + x

-- @fragment key(t, s)
t || ':' || s
`);
const render = (body: string, dialect: 'duckdb' | 'clickhouse', header = '-- @name t\n') =>
  renderQuery({ file: 't', text: `${header}${body}` }, dialect, fragments)
    .split('\n')
    .slice(2 + header.split('\n').length - 2)
    .join('\n');

describe('renderQuery', () => {
  it('binds parameters as each engine does, with the declared type', () => {
    const header = '-- @name t\n-- @param since_ns BIGINT? from\n-- @param limit UBIGINT at most\n';
    const text = 'SELECT 1 WHERE $since_ns IS NULL LIMIT $limit;';
    const duck = renderQuery({ file: 't', text: header + text }, 'duckdb', fragments);
    expect(duck).toContain('-- @param since_ns BIGINT from\n');
    expect(duck).toContain('\nSELECT 1 WHERE $since_ns IS NULL LIMIT $limit;\n');
    const ch = renderQuery({ file: 't', text: header + text }, 'clickhouse', fragments);
    expect(ch).toContain('-- @param since_ns Nullable(Int64) from');
    expect(ch).toContain('SELECT 1 WHERE {since_ns:Nullable(Int64)} IS NULL LIMIT {limit:UInt64}\n');
    expect(ch.trimEnd().endsWith(';')).toBe(false);
  });

  it('a view (@session_view) reads its parameters from session variables in DuckDB; ClickHouse keeps a table that binds them', () => {
    const text = '-- @name prepare_x\n-- @param since_ns BIGINT? from\n-- @returns nothing\n@session_view(report_x)\nSELECT * FROM t WHERE $since_ns IS NULL OR start_ns >= $since_ns;';
    const duck = renderQuery({ file: 'prepare-x', text }, 'duckdb', fragments);
    expect(duck).toContain('\n-- @binds variables');
    expect(duck).toContain("CREATE OR REPLACE TEMP VIEW report_x AS\nSELECT * FROM t WHERE getvariable('prepare_x_since_ns') IS NULL OR start_ns >= getvariable('prepare_x_since_ns');");
    expect(parseQuery(duck, 'prepare-x.sql').bindsVariables).toBe(true);
    const ch = renderQuery({ file: 'prepare-x', text }, 'clickhouse', fragments);
    expect(ch).not.toContain('@binds');
    expect(ch).toContain('CREATE OR REPLACE TEMPORARY TABLE report_x AS\nSELECT * FROM t WHERE {since_ns:Nullable(Int64)} IS NULL');
    // Without parameters a view binds nothing.
    expect(parseQuery(renderQuery({ file: 'v', text: '-- @name v\n@session_view(v)\nSELECT 1;' }, 'duckdb', fragments), 'v.sql').bindsVariables).toBe(false);
  });

  it('expands fragments with their arguments, nested constructs inside', () => {
    expect(render("SELECT @twice(a.n + 1) AS v, @key(trace_id, @starts_with(s, 'x')) AS k;", 'clickhouse')).toContain("SELECT (a.n + 1) + (a.n + 1) AS v, trace_id || ':' || (startsWith(s, 'x')) AS k");
  });

  it('leaves comments and string literals as they are', () => {
    const out = render("SELECT '@twice(1) $x', 'it''s' AS s -- @twice(2) $y\n;", 'clickhouse');
    expect(out).toContain("SELECT '@twice(1) $x', 'it''s' AS s -- @twice(2) $y");
  });

  it('says what is wrong: an undeclared parameter, an unknown construct, a wrong count', () => {
    expect(() => render('SELECT $nope;', 'duckdb')).toThrow(/\$nope is not declared/);
    expect(() => render('SELECT @nope(1);', 'duckdb')).toThrow(/no construct or fragment @nope/);
    expect(() => render('SELECT @left(1);', 'duckdb')).toThrow(/@left takes 2 arguments, not 1/);
    expect(() => render('SELECT @twice(1, 2);', 'duckdb')).toThrow(/@twice takes 1 arguments, not 2/);
    expect(() => parseFragments('-- @fragment bad(x)\nx -- no\n')).toThrow(/holds a comment/);
  });

  it('limits a file to a dialect with @dialects', () => {
    expect(modelDialects('-- @name x\n')).toEqual(['duckdb', 'clickhouse']);
    expect(modelDialects('-- @dialects duckdb\n')).toEqual(['duckdb']);
    expect(() => modelDialects('-- @dialects postgres\n')).toThrow(/no dialect postgres/);
  });
});

describe('nameQualifiedColumns (ClickHouse names a joined column b.x; DuckDB x)', () => {
  it('names bare qualified columns of each select list, nested ones too', () => {
    expect(nameQualifiedColumns('SELECT b.x, b.y AS z, count(*) AS n FROM t AS b JOIN (SELECT DISTINCT c.k FROM c) AS d ON d.k = b.x')).toBe(
      'SELECT b.x AS x, b.y AS z, count(*) AS n FROM t AS b JOIN (SELECT DISTINCT c.k AS k FROM c) AS d ON d.k = b.x',
    );
  });
  it('leaves a name that is taken (a later UNION branch selecting two columns of that name)', () => {
    expect(nameQualifiedColumns('SELECT w.a, w.s, p.s FROM w JOIN p ON true')).toBe('SELECT w.a AS a, w.s AS s, p.s FROM w JOIN p ON true');
  });
  it('keeps comments and strings, and the star', () => {
    expect(nameQualifiedColumns("SELECT s.*, 'a.b', -- t.c, \n  t.d\nFROM s")).toBe("SELECT s.*, 'a.b', -- t.c, \n  t.d AS d\nFROM s");
  });
});
