import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLICKHOUSE_SETTINGS } from '../../clickhouse/source.js';
import { CONSTRUCTS, type Dialect } from '../../sql/dialect.js';
import { renderQuery } from '../../sql/render-query.js';
import { fragments } from '../../sql/model-queries.js';

/**
 * Each construct of analyzer/sql/dialect.ts, run on both engines (DuckDB, and
 * ClickHouse embedded under the product's settings) on the inputs where the
 * engines' own spellings part: the same value from each.
 */
let duck: DuckDBConnection;
let duckDb: DuckDBInstance;
let ch: ClickHouseClient;
beforeAll(async () => {
  duckDb = await DuckDBInstance.create(':memory:');
  duck = await duckDb.connect();
  ch = createClient({ connection: createChdbConnection({ path: ':memory:' }) as never });
});
afterAll(async () => {
  duck.closeSync();
  duckDb.closeSync();
  await ch.close();
});

const shared = fragments();
const body = (sql: string, dialect: Dialect): string =>
  renderQuery({ file: 'probe', text: `-- @name probe\n${sql}` }, dialect, shared)
    .split('\n')
    .slice(2)
    .join('\n')
    .trim()
    .replace(/;$/, '');

async function value(sql: string | ((d: Dialect) => string), dialect: Dialect): Promise<unknown> {
  const q = body(typeof sql === 'string' ? sql : sql(dialect), dialect);
  if (dialect === 'duckdb') {
    const v = (await duck.runAndReadAll(q)).getRowObjectsJson()[0]?.['v'];
    return v;
  }
  const rows = await (await ch.query({ query: q, format: 'JSONEachRow', clickhouse_settings: { ...CLICKHOUSE_SETTINGS, output_format_json_quote_64bit_integers: 0 } })).json<{ v: unknown }>();
  return rows[0]?.v;
}
/** The value of `sql` (a SELECT of one column v) on both engines: the same, and the one expected. */
async function both(sql: string | ((d: Dialect) => string), expected: unknown): Promise<void> {
  const d = await value(sql, 'duckdb');
  const c = await value(sql, 'clickhouse');
  const norm = (v: unknown): unknown => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v === 1 && typeof expected === 'boolean' ? true : v === 0 && typeof expected === 'boolean' ? false : v);
  expect({ duckdb: norm(d), clickhouse: norm(c) }).toEqual({ duckdb: expected, clickhouse: expected });
}
const values = (xs: number[]): string => `FROM (SELECT 1 AS one) AS o @array_join([${xs.join(', ')}], x)`;

describe('the dialect constructs give one value on both engines', () => {
  it('round: half away from zero (ClickHouse rounds floats half to even)', async () => {
    await both('SELECT @round(0.0125, 3) AS v', 0.013);
    await both('SELECT @round(-2.5, 0) AS v', -3);
    await both('SELECT @round(1234.5678, 3) AS v', 1234.568);
  });
  it('try_bigint and try_double: the number, NULL for text that is not one', async () => {
    await both("SELECT @try_bigint('42') AS v", 42);
    await both("SELECT @try_bigint('forty') AS v", null);
    await both("SELECT @try_double('1.5') AS v", 1.5);
    await both("SELECT @try_double('x') AS v", null);
  });
  it('left: characters, not bytes', async () => {
    await both("SELECT @left('héllo', 2) AS v", 'hé');
  });
  it('int_div: whole, toward zero (// is a comment in ClickHouse)', async () => {
    await both('SELECT @int_div(CAST(7 AS Int128) * 3, 2) AS v', 10);
  });
  it('starts_with, full_match (anchored, backslashes kept), matches, regexp_replace', async () => {
    await both("SELECT @starts_with('afterstop.tool', 'afterstop.') AS v", true);
    await both("SELECT @full_match('gen_ai.completion.0.tool_calls.1.id', 'gen_ai\\.completion\\.\\d+\\.tool_calls\\.\\d+\\.id') AS v", true);
    await both("SELECT @full_match('xgen_ai.completion.0.tool_calls.1.id', 'gen_ai\\.completion\\.\\d+\\.tool_calls\\.\\d+\\.id') AS v", false);
    await both("SELECT @full_match('gen_aiXcompletion', 'gen_ai\\.completion') AS v", false);
    await both("SELECT @matches('Error: Unprocessed tool calls', '(?i)unprocessed tool calls') AS v", true);
    await both("SELECT @regexp_replace('a.b.id', '\\.id$', '.name') AS v", 'a.b.name');
  });
  it('nearest_ranks: the values at rank ceil(p × n), exact where floating point would round up; NULL for none', async () => {
    const ranks = (i: number): string => `@nearest_ranks(x, 0.50, 0.95, 0.99)[${i}] AS v`;
    await both(`SELECT ${ranks(1)} ${values([40, 10, 30, 20])}`, 20);
    await both(`SELECT ${ranks(2)} ${values([40, 10, 30, 20])}`, 40);
    await both(`SELECT ${ranks(2)} ${values(Array.from({ length: 20 }, (_, i) => i + 1))}`, 19);
    await both(`SELECT ${ranks(3)} ${values(Array.from({ length: 100 }, (_, i) => i + 1))}`, 99);
    await both(`SELECT ${ranks(2)} ${values(Array.from({ length: 300 }, (_, i) => i + 1))}`, 285);
    await both(`SELECT ${ranks(1)} ${values([7])}`, 7);
    await both(`SELECT ${ranks(3)} ${values([7])}`, 7);
    await both(`SELECT ${ranks(1)} ${values([7])} WHERE x > 7`, null);
    // Any three percentiles, in the order given: the 0.25 of 1..8 is the value at rank 2, the 0.75 at rank 6.
    await both(`SELECT @nearest_ranks(x, 0.75, 0.25, 1.0)[2] AS v ${values([8, 1, 7, 2, 6, 3, 5, 4])}`, 2);
    await both(`SELECT @nearest_ranks(x, 0.75, 0.25, 1.0)[1] AS v ${values([8, 1, 7, 2, 6, 3, 5, 4])}`, 6);
  });
  it('sorted_distinct: the distinct values, sorted, joined', async () => {
    await both(`SELECT @sorted_distinct(CAST(x AS VARCHAR), ', ') AS v ${values([3, 1, 3, 2])}`, '1, 2, 3');
    // Text sorts by its bytes (capitals first), and a NULL is not a value.
    await both("SELECT @sorted_distinct(m, ', ') AS v FROM (SELECT 'b' AS m UNION ALL SELECT 'a' AS m UNION ALL SELECT 'B' AS m UNION ALL SELECT NULL AS m UNION ALL SELECT 'a' AS m) AS t", 'B, a, b');
  });
  it('sorted_distinct_split: the distinct elements of comma-joined lists, sorted, joined; NULL for none', async () => {
    await both("SELECT @sorted_distinct_split(m, ',') AS v FROM (SELECT 'b,a' AS m UNION ALL SELECT 'a' AS m UNION ALL SELECT NULL AS m UNION ALL SELECT 'c,b' AS m) AS t", 'a,b,c');
    await both("SELECT @sorted_distinct_split(m, ',') AS v FROM (SELECT 'a' AS m) AS t WHERE m = 'z'", null);
  });
  it("map_keys and map_get (a missing key is NULL, not '')", async () => {
    // No common spelling for a map's literal (the model files read maps from tables): each engine's own here.
    const from = (d: Dialect): string => `FROM (SELECT ${d === 'duckdb' ? "map(['a', 'b'], ['v1', 'v2'])" : "map('a', 'v1', 'b', 'v2')"} AS m) AS t`;
    await both((d) => `SELECT length(@map_keys(m)) AS v ${from(d)}`, 2);
    await both((d) => `SELECT @map_get(m, 'a') AS v ${from(d)}`, 'v1');
    await both((d) => `SELECT @map_get(m, 'z') AS v ${from(d)}`, null);
  });
  it('json_string, json_double, json_array', async () => {
    await both(`SELECT @json_string('{"toolCallId": "c1"}', 'toolCallId') AS v`, 'c1');
    await both(`SELECT @json_string('{"other": 1}', 'toolCallId') AS v`, null);
    await both(`SELECT @json_double('{"input": 2.5}', 'input') AS v`, 2.5);
    await both(`SELECT count(*) AS v FROM (SELECT 1 AS one) AS o @array_join(@json_array('[{"a": 1}, {"a": 2}]'), e)`, 2);
  });
  it('tuple_get: an element of a tuple an aggregate chose', async () => {
    await both("SELECT @tuple_get(argMin(('r1', 't1'), 2), 2) AS v", 't1');
    await both("SELECT @tuple_get(argMin((x, 'k'), (x <> 'b', x)), 1) AS v FROM (SELECT 'a' AS x UNION ALL SELECT 'b' AS x UNION ALL SELECT 'c' AS x) AS t", 'b');
  });
  it('fragments: stop_offset and run_local_id read alike', async () => {
    await both('SELECT @stop_offset(-3000000) AS v', '3.000 ms before Stop');
    await both('SELECT @stop_offset(12345678) AS v', '12.346 ms after Stop');
    await both("SELECT @run_local_id('trace:run:1') AS v", 'run:1');
  });
  it('every construct is exercised here', () => {
    const tested = [
      'try_bigint',
      'try_double',
      'round',
      'left',
      'int_div',
      'starts_with',
      'full_match',
      'matches',
      'regexp_replace',
      'nearest_ranks',
      'sorted_distinct',
      'sorted_distinct_split',
      'map_keys',
      'map_get',
      'json_string',
      'json_double',
      'json_array',
      'array_join',
      'tuple_get',
    ];
    // The store/session constructs (touched, touched_scope, assigned_spans, store_insert, update_spans, session_view, statement_table) are run by assign-runs, run-facts, steer-facts, prepare-runs and ghost-spans on both engines (test/analyzer/clickhouse/report.test.ts).
    const session = ['touched', 'touched_scope', 'assigned_spans', 'store_insert', 'update_spans', 'session_view', 'statement_table'];
    expect(Object.keys(CONSTRUCTS).sort()).toEqual([...tested, ...session].sort());
  });
});
