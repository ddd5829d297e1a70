import { DuckDBInstance, JSDuckDBValueConverter, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Query } from '../../queries.js';
import { appendTypedRows, QueryColumnError, typedRows } from '../../sql/typed-rows.js';

/**
 * A query's rows typed from the engine's columns a chunk at a time (what Store.typedRows does) are the rows
 * typed from whole row objects (what the ClickHouse source does), over several of DuckDB's chunks (2,048 rows
 * each), every declared type and NULLs among them; a column missing or a NULL where none is declared is named.
 */
const ROWS = 5_000;
const SQL = `SELECT
  'span-' || i AS span_id,
  CASE WHEN i % 3 = 0 THEN NULL ELSE 'tool_' || (i % 7) END AS tool,
  CAST(i AS BIGINT) * 1000000000 AS start_ns,
  CAST(i % 100 AS INTEGER) AS status,
  i / 4.0 AS ms,
  i % 2 = 0 AS ended,
  CASE WHEN i % 5 = 0 THEN ['a', 'b'] ELSE [] END AS ids
FROM range(${ROWS}) t(i) ORDER BY i`;

const declared = (columns: Query['columns']): Query => ({ name: 'test', description: '', params: [], returns: 'rows', columns, sql: SQL, file: 'queries/test.sql', bindsVariables: false });
const q = declared([
  { name: 'span_id', type: 'text', nullable: false },
  { name: 'tool', type: 'text', nullable: true },
  { name: 'start_ns', type: 'bigint', nullable: false },
  { name: 'status', type: 'int', nullable: false },
  { name: 'ms', type: 'float', nullable: false },
  { name: 'ended', type: 'bool', nullable: false },
  { name: 'ids', type: 'text[]', nullable: false },
]);

let instance: DuckDBInstance;
let connection: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

/** The query's rows through appendTypedRows, streamed chunk by chunk; and how many chunks there were. */
async function streamed(query: Query): Promise<{ rows: Record<string, unknown>[]; chunks: number }> {
  const result = await connection.stream(query.sql);
  const names = result.columnNames();
  const rows: Record<string, unknown>[] = [];
  let chunks = 0;
  for await (const chunk of result) {
    chunks += 1;
    appendTypedRows(query, names, chunk.convertColumns(JSDuckDBValueConverter), chunk.rowCount, rows);
  }
  return { rows, chunks };
}

describe('typed rows from streamed columns', () => {
  it('are the rows typed from whole row objects, in order, across chunks', async () => {
    const { rows, chunks } = await streamed(q);
    expect(chunks).toBeGreaterThan(1);
    const whole = typedRows<Record<string, unknown>>(q, (await connection.runAndReadAll(SQL)).getRowObjectsJS());
    expect(rows).toHaveLength(ROWS);
    expect(rows).toEqual(whole);
    expect(rows[3]).toEqual({ span_id: 'span-3', tool: null, start_ns: 3_000_000_000n, status: 3, ms: 0.75, ended: false, ids: [] });
    expect(rows[ROWS - 1]).toEqual({ span_id: `span-${ROWS - 1}`, tool: `tool_${(ROWS - 1) % 7}`, start_ns: BigInt(ROWS - 1) * 1_000_000_000n, status: (ROWS - 1) % 100, ms: (ROWS - 1) / 4, ended: false, ids: [] });
    expect(rows[5]!['ids']).toEqual(['a', 'b']);
    expect(typedRows(q, [])).toEqual([]);
  });

  it('have the declared columns only, in the declared order', async () => {
    const narrow = declared([
      { name: 'ended', type: 'bool', nullable: false },
      { name: 'span_id', type: 'text', nullable: false },
    ]);
    const { rows } = await streamed(narrow);
    expect(Object.keys(rows[0]!)).toEqual(['ended', 'span_id']);
    expect(rows[1]).toEqual({ ended: false, span_id: 'span-1' });
  });

  it('name a declared column the engine did not give, and a NULL where the header declares none', async () => {
    await expect(streamed(declared([{ name: 'trace_id', type: 'text', nullable: false }]))).rejects.toThrow(/queries\/test\.sql: the engine gave no column trace_id \(it gave span_id, tool,/);
    const strict = declared([{ name: 'tool', type: 'text', nullable: false }]);
    const error = await streamed(strict).catch((e: unknown) => e);
    expect(QueryColumnError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('queries/test.sql: column tool is declared text, and the engine gave NULL');
    // The stream left unread does not hold the connection.
    expect((await streamed(q)).rows).toHaveLength(ROWS);
  });
});
