import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../store.js';
import { openStore, sqlRows } from '../../../test/helpers/trace-builder.js';

/** schema.sql and macros.sql, run by Store.open. (The nearest-rank percentile is a construct of both engines now: analyzer/test/sql/dialect.e2e.test.ts.) */
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());
const one = async (sql: string): Promise<unknown> => Object.values((await sqlRows(store, `SELECT ${sql} AS v`))[0]!)[0];

describe('schema', () => {
  it('creates spans, ingested_files and skipped_lines, and can run again', async () => {
    const tables = await sqlRows(store, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1");
    expect(tables.map((t) => t['table_name'])).toEqual([
      'cancel_span_facts',
      'clock_pair_facts',
      'commit_facts',
      'compensation_facts',
      'error_span_facts',
      'ghost_commit_facts',
      'ingested_files',
      'model_call_facts',
      'orphan_process_facts',
      'prevented_commit_facts',
      'repair_facts',
      'replay_facts',
      'run_facts',
      'scope_members',
      'skipped_lines',
      'span_files',
      'spans',
      'steer_facts',
      'steer_mark_facts',
      'store_meta',
      'tool_call_facts',
    ]);
    await store.connection.run("INSERT INTO spans (trace_id, span_id, name, start_ns, end_ns, status_code, ingest_id) VALUES ('t', 's', 'n', 1, 2, 0, 1)");
    // Running the schema again changes nothing that exists.
    await store.script((await import('../../queries.js')).query('schema'));
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
    expect(
      await one(
        "[otlp_kind('SPAN_KIND_INTERNAL'), otlp_kind('SPAN_KIND_SERVER'), otlp_kind('SPAN_KIND_CLIENT'), otlp_kind('SPAN_KIND_PRODUCER'), otlp_kind('SPAN_KIND_CONSUMER'), otlp_kind('SPAN_KIND_UNSPECIFIED'), otlp_kind('3')]",
      ),
    ).toEqual([1, 2, 3, 4, 5, 0, 3]);
    expect(await one("[otlp_status('STATUS_CODE_OK'), otlp_status('STATUS_CODE_ERROR'), otlp_status('STATUS_CODE_UNSET'), otlp_status('2'), otlp_status(NULL::VARCHAR)]")).toEqual([1, 2, 0, 2, 0]);
  });
});

describe('attr', () => {
  it('looks a key up in the lists of keys and values; the first value of a repeated key wins', async () => {
    expect(await one("attr(['a', 'b'], ['1', '2'], 'b')")).toBe('2');
    expect(await one("attr(['a', 'b', 'a'], ['first', 'x', 'second'], 'a')")).toBe('first');
  });
  it('gives NULL for a missing key or a missing list', async () => {
    expect(await one("attr(['a'], ['1'], 'z')")).toBeNull();
    expect(await one("attr(NULL::VARCHAR[], NULL::VARCHAR[], 'a')")).toBeNull();
  });
});

describe('otlp_value', () => {
  it('reads ints, bools and arrays as text', async () => {
    const v = await sqlRows(
      store,
      `SELECT otlp_value({'stringValue': NULL::VARCHAR, 'intValue': '42', 'doubleValue': NULL::VARCHAR, 'boolValue': NULL::BOOLEAN, 'arrayValue': NULL::JSON, 'kvlistValue': NULL::JSON, 'bytesValue': NULL::VARCHAR}) AS i,
      otlp_value({'stringValue': NULL::VARCHAR, 'intValue': NULL::VARCHAR, 'doubleValue': NULL::VARCHAR, 'boolValue': false, 'arrayValue': NULL::JSON, 'kvlistValue': NULL::JSON, 'bytesValue': NULL::VARCHAR}) AS b`,
    );
    expect(v[0]).toEqual({ i: '42', b: 'false' });
  });
});

describe('span_role and is_run_span', () => {
  it('tells runs, markers, tools and model calls of every convention', async () => {
    const role = (name: string, op = 'NULL', oi = 'NULL', tl = 'NULL', req = 'false') => one(`span_role('${name}', ${op}, ${oi}, ${tl}, ${req})`);
    expect(await role('invoke_agent a')).toBe('run');
    expect(await role('x', "'invoke_agent'")).toBe('run');
    expect(await role('afterstop.tool.commit')).toBe('marker');
    expect(await role('execute_tool send')).toBe('tool');
    expect(await role('ai.toolCall')).toBe('tool');
    expect(await role('x', 'NULL', "'TOOL'")).toBe('tool');
    expect(await role('x', 'NULL', 'NULL', "'tool'")).toBe('tool');
    expect(await role('x', "'chat'")).toBe('model');
    expect(await role('x', 'NULL', 'NULL', 'NULL', 'true')).toBe('model');
    expect(await role('ai.streamText.doStream')).toBe('model');
    expect(await role('x', 'NULL', "'LLM'")).toBe('model');
    expect(await role('db.query')).toBe('other');
    expect(await one("is_run_span('ai.streamText', NULL)")).toBe(false);
  });
});
