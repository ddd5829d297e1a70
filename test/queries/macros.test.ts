import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../analyzer/store.js';
import { openStore, sqlRows } from '../helpers/trace-builder.js';

/** schema.sql and macros.sql, run by Store.open. */
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());
const one = async (sql: string): Promise<unknown> => Object.values((await sqlRows(store, `SELECT ${sql} AS v`))[0]!)[0];

describe('schema', () => {
  it('creates spans, ingested_files and skipped_lines, and can run again', async () => {
    const tables = await sqlRows(store, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1");
    expect(tables.map((t) => t['table_name'])).toEqual(['ingested_files', 'run_facts', 'skipped_lines', 'span_facts', 'spans', 'store_meta']);
    await store.connection.run("INSERT INTO spans (trace_id, span_id, name, start_ns, end_ns, status_code) VALUES ('t', 's', 'n', 1, 2, 0)");
    // Running the schema again changes nothing that exists.
    await store.script((await import('../../analyzer/queries.js')).query('schema'));
    expect(await sqlRows(store, 'SELECT count(*) AS n FROM spans')).toEqual([{ n: 1 }]);
  });
});

describe('otlp_id', () => {
  it('keeps hex (lower-cased) and decodes base64 ids to hex', async () => {
    expect(await one("otlp_id('00000000000000000000000000ABCDEF')")).toBe('00000000000000000000000000abcdef');
    expect(await one("otlp_id('AAAAAAAAAAAAAAAAAAAAAQ==')")).toBe('00000000000000000000000000000001');
    expect(await one("otlp_id('AAAAAAAAAAI=')")).toBe('0000000000000002');
  });
  it('reads an empty or missing id as NULL', async () => {
    expect(await one("otlp_id('')")).toBeNull();
    expect(await one('otlp_id(NULL::VARCHAR)')).toBeNull();
  });
});

describe('otlp_kind and otlp_status', () => {
  it('map the enum names and the numbers', async () => {
    expect(await one("[otlp_kind('SPAN_KIND_INTERNAL'), otlp_kind('SPAN_KIND_SERVER'), otlp_kind('SPAN_KIND_CLIENT'), otlp_kind('SPAN_KIND_PRODUCER'), otlp_kind('SPAN_KIND_CONSUMER'), otlp_kind('SPAN_KIND_UNSPECIFIED'), otlp_kind('3')]"))
      .toEqual([1, 2, 3, 4, 5, 0, 3]);
    expect(await one("[otlp_status('STATUS_CODE_OK'), otlp_status('STATUS_CODE_ERROR'), otlp_status('STATUS_CODE_UNSET'), otlp_status('2'), otlp_status(NULL::VARCHAR)]"))
      .toEqual([1, 2, 0, 2, 0]);
  });
});

describe('otlp_attrs', () => {
  const kv = (key: string, v: string) => `{'key': '${key}', 'value': {'stringValue': ${v}, 'intValue': NULL::VARCHAR, 'doubleValue': NULL::VARCHAR, 'boolValue': NULL::BOOLEAN, 'arrayValue': NULL::JSON, 'kvlistValue': NULL::JSON, 'bytesValue': NULL::VARCHAR}}`;
  it('maps keys to their values as text', async () => {
    expect(await one(`otlp_attrs([${kv('a', "'1'")}, ${kv('b', "'2'")}])['b']`)).toBe('2');
    expect(await one(`cardinality(otlp_attrs([${kv('a', "'1'")}, ${kv('b', "'2'")}]))`)).toBe(2);
  });
  it('never lets a later value of a repeated key win (first wins, or the list is refused for the careful reader)', async () => {
    const result = await sqlRows(store, `SELECT otlp_attrs([${kv('a', "'first'")}, ${kv('b', "'x'")}, ${kv('a', "'second'")}])['a'] AS a`).then(
      (rows) => rows[0]!['a'],
      (error: Error) => `refused: ${error.message}`,
    );
    expect(result === 'first' || String(result).startsWith('refused')).toBe(true);
  });
  it('reads a missing attribute list as an empty map, and ints, bools and arrays as text', async () => {
    expect(await one('cardinality(otlp_attrs(NULL))')).toBe(0);
    const v = await sqlRows(store, `SELECT otlp_value({'stringValue': NULL::VARCHAR, 'intValue': '42', 'doubleValue': NULL::VARCHAR, 'boolValue': NULL::BOOLEAN, 'arrayValue': NULL::JSON, 'kvlistValue': NULL::JSON, 'bytesValue': NULL::VARCHAR}) AS i,
      otlp_value({'stringValue': NULL::VARCHAR, 'intValue': NULL::VARCHAR, 'doubleValue': NULL::VARCHAR, 'boolValue': false, 'arrayValue': NULL::JSON, 'kvlistValue': NULL::JSON, 'bytesValue': NULL::VARCHAR}) AS b`);
    expect(v[0]).toEqual({ i: '42', b: 'false' });
  });
});

describe('nearest_rank (METRICS.md: the value at rank ceil(P/100 × n))', () => {
  it('10, 20, 30, 40: p50 20, p95 40, p99 40; unsorted input', async () => {
    expect(await one('[nearest_rank([40, 10, 30, 20], 0.50), nearest_rank([40, 10, 30, 20], 0.95), nearest_rank([40, 10, 30, 20], 0.99)]')).toEqual([20, 40, 40]);
  });
  it('is exact where floating point would round up (n = 20, 100, 300)', async () => {
    expect(await one('nearest_rank(range(1, 21), 0.95)')).toBe(19);
    expect(await one('nearest_rank(range(1, 101), 0.99)')).toBe(99);
    expect(await one('nearest_rank(range(1, 101), 0.50)')).toBe(50);
    expect(await one('nearest_rank(range(1, 301), 0.95)')).toBe(285);
  });
  it('one value is every percentile; no value is NULL', async () => {
    expect(await one('nearest_rank([7], 0.5)')).toBe(7);
    expect(await one('nearest_rank([]::INTEGER[], 0.5)')).toBeNull();
  });
});
