import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseSource } from '../../../clickhouse/source.js';
import { parseQuery, query } from '../../../queries.js';
import type { Store } from '../../../store.js';
import { chdbWithTraces } from '../../../../test/helpers/chdb.js';
import { listValue, openStore } from '../../../../test/helpers/trace-builder.js';

/**
 * queries/clickhouse/spans.sql: the golden traces as the Collector's
 * ClickHouse exporter stores them (both enum spellings) give, span for span,
 * the columns DuckDB's store-files.sql gives the same traces.
 */
const golden = fileURLToPath(new URL('../../../../test/fixtures/golden/', import.meta.url));
const files = fs
  .readdirSync(golden)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => `${golden}${f}`);
const COLUMNS = [
  'trace_id',
  'span_id',
  'parent_span_id',
  'name',
  'kind',
  'start_ns',
  'end_ns',
  'status_code',
  'status_message',
  'service',
  'scope',
  'attr_run_id',
  'op_name',
  'framework',
  'conversation_id',
  'agent_name',
  'function_id',
  'tool_name',
  'tool_call_id',
  'model',
  'has_request_model',
  'input_tokens',
  'output_tokens',
  'output_tokens_streamed',
  'output_tokens_after_cancel',
  'time_to_first_chunk_s',
  'outcome',
  'finish_reason',
  'effect',
  'tool_kind',
  'out_of_sight',
  'result',
  'idempotency_key',
  'steer_id',
  'steer_position',
  'repair_call_ids',
  'compensation_outcome',
  'pid',
  'error_type',
  'exception_text',
  'oi_kind',
  'traceloop_kind',
  'is_cancellation',
  'has_http',
  'agent_like',
  'output_tool_calls',
  'role',
  'run_id',
];

/** Values compared as text (ClickHouse gives 64-bit integers as strings, DuckDB as numbers); no repair ids is []. */
const normal = (row: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(COLUMNS.map((c) => [c, c === 'repair_call_ids' ? JSON.stringify(row[c] ?? []) : row[c] === null || row[c] === undefined ? 'NULL' : String(row[c])]));
const byId = (a: Record<string, string>, b: Record<string, string>): number => `${a['trace_id']}${a['span_id']}`.localeCompare(`${b['trace_id']}${b['span_id']}`);

/** Every row of the temporary table spans.sql made (each run of it replaces the table). */
const ALL_SPANS = parseQuery('-- @name all_spans\n-- @returns every column\nSELECT * FROM spans', 'spans.test.ts');

let ch: Awaited<ReturnType<typeof chdbWithTraces>>;
let store: Store;
let duck: Record<string, string>[];
beforeAll(async () => {
  ch = await chdbWithTraces({ otel_traces: { files }, otel_traces_old: { files, spelling: 'old' } });
  store = await openStore();
  await store.run(query('store-files'), { files: listValue(files), compression: 'uncompressed', source: null, max_object_bytes: 16_777_216n, ingest_id: 1 });
  // As stored (the run key whole, not as the report shows it), to compare with ClickHouse's.
  duck = (await store.connection.runAndReadAll('SELECT * FROM spans')).getRowObjectsJS().map(normal).sort(byId);
});
afterAll(async () => {
  store.close();
  await ch.close();
});

async function clickhouseSpans(source: ClickHouseSource): Promise<Record<string, string>[]> {
  await source.run(query('clickhouse/spans'), { since_ns: 0n, until_ns: 9_000_000_000_000_000_000n });
  const rows = await source.rows(ALL_SPANS);
  return rows.map(normal).sort(byId);
}

describe('clickhouse/spans', () => {
  it.each(['otel_traces', 'otel_traces_old'])('%s: every golden span with the columns DuckDB gives it', async (table) => {
    const rows = await clickhouseSpans(ch.source(table));
    expect(rows).toHaveLength(duck.length);
    expect(rows).toEqual(duck);
  });

  it('reads only the window', async () => {
    const source = ch.source('otel_traces');
    const first = BigInt(duck.reduce((m, r) => (BigInt(r['start_ns']!) < m ? BigInt(r['start_ns']!) : m), BigInt(duck[0]!['start_ns']!)));
    await source.run(query('clickhouse/spans'), { since_ns: first + 1n, until_ns: 9_000_000_000_000_000_000n });
    const [count] = await source.rows<{ n: string }>(query('clickhouse/span-count'));
    expect(Number(count!.n)).toBe(duck.filter((r) => BigInt(r['start_ns']!) > first).length);
  });
});
