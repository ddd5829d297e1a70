import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../queries.js';
import type { Store } from '../../store.js';
import { ingestFiles, listValue, ns, openStore, sqlRows, storedRows, traces, writeLines } from '../../../test/helpers/trace-builder.js';

/** store-files.sql: OTLP/JSON straight into spans, one row per span, with the leak model's columns. */
const span = (o: Record<string, unknown>) => ({ name: 'n', startTimeUnixNano: '1', endTimeUnixNano: '2', ...o });
const line = (service: string, spans: Record<string, unknown>[]) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ scope: { name: 'sc' }, spans }] }] });

let store: Store;
let nextIngest = 1;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());
/** Store files as a new ingest; returns its rows. */
async function storeFiles(files: string[], source: string | null = null): Promise<Record<string, unknown>[]> {
  const id = nextIngest++;
  await store.run(query('store-files'), { files: listValue(files), compression: 'uncompressed', source, max_object_bytes: 16_777_216n, ingest_id: id });
  return sqlRows(store, `SELECT * FROM spans WHERE ingest_id = ${id} ORDER BY span_id NULLS LAST`);
}

describe('store-files', () => {
  it('flattens the builder’s lines: ids, parent, times, kind, status, service, scope, file, the model’s columns, role and run', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c1', service: 'svc-a', startMs: 0, endMs: 900, outcome: 'cancelled' });
    const tool = r.tool({ name: 'x', callId: 'k', startMs: 10, endMs: 20, startMarker: false, status: { code: 'error', message: 'boom' }, exceptions: [{ type: 'E', message: 'm' }] });
    const file = t.write();
    const rows = await storeFiles([file]);
    expect(rows).toHaveLength(2);
    const run = rows.find((x) => x['span_id'] === r.spanId)!;
    const call = rows.find((x) => x['span_id'] === tool)!;
    expect(run['trace_id']).toMatch(/^[0-9a-f]{32}$/);
    expect(run).toMatchObject({
      trace_id: r.traceId,
      parent_span_id: null,
      kind: 1,
      status_code: 0,
      status_message: null,
      service: 'svc-a',
      scope: 'afterstop',
      file,
      role: 'run',
      run_id: r.spanId,
      outcome: 'cancelled',
      conversation_id: 'c1',
      agent_like: true,
      has_http: false,
    });
    expect(run['start_ns']).toBe(ns(0));
    expect(call).toMatchObject({
      parent_span_id: r.spanId,
      status_code: 2,
      status_message: 'boom',
      name: 'execute_tool x',
      tool_name: 'x',
      tool_call_id: 'k',
      role: 'tool',
      run_id: r.spanId,
      exception_text: 'm',
      is_cancellation: false,
    });
    expect(call['end_ns']).toBe(ns(20));
  });

  it('decodes base64 ids, enum names of kind and status, numbers given as JSON numbers', async () => {
    const file = writeLines([
      line('s', [
        span({
          traceId: 'AAAAAAAAAAAAAAAAAAAAAQ==',
          spanId: 'AAAAAAAAAAI=',
          parentSpanId: 'AAAAAAAAAAM=',
          kind: 'SPAN_KIND_CLIENT',
          startTimeUnixNano: 1790000000000000000,
          endTimeUnixNano: '1790000000000000005',
          status: { code: 'STATUS_CODE_ERROR', message: '' },
          attributes: [
            { key: 'gen_ai.usage.input_tokens', value: { intValue: 800 } },
            { key: 'gen_ai.response.time_to_first_chunk', value: { doubleValue: 0.25 } },
          ],
        }),
      ]),
    ]);
    const [row] = await storeFiles([file]);
    expect(row).toMatchObject({
      trace_id: '00000000000000000000000000000001',
      span_id: '0000000000000002',
      parent_span_id: '0000000000000003',
      kind: 3,
      status_code: 2,
      status_message: null,
      start_ns: ns(0),
      input_tokens: 800,
      time_to_first_chunk_s: 0.25,
    });
  });

  it('keeps a span without trace id, span id or times with NULLs there (the ingest counts and removes it)', async () => {
    const file = writeLines([
      line('s', [
        span({ traceId: '01', spanId: '02' }),
        span({ traceId: '', spanId: '03' }),
        span({ traceId: '01', spanId: '04', startTimeUnixNano: undefined }),
        span({ traceId: '01', spanId: '05', endTimeUnixNano: 'soon' }),
      ]),
    ]);
    const rows = await storeFiles([file]);
    expect(rows.map((x) => [x['trace_id'], x['span_id'], x['start_ns'] !== null, x['end_ns'] !== null])).toEqual([
      ['01', '02', true, true],
      [null, '03', true, true],
      ['01', '04', false, true],
      ['01', '05', true, false],
    ]);
  });

  it('records the file read, or the source given', async () => {
    const file = writeLines([line('s', [span({ traceId: '01', spanId: '02' })])]);
    expect((await storeFiles([file]))[0]!['file']).toBe(file);
    expect((await storeFiles([file], 'original.jsonl'))[0]!['file']).toBe('original.jsonl');
  });

  it('reads the conventions: a foreign span has no run until assign-runs.sql, a span with tool call ids in its output keeps its attributes', async () => {
    const file = writeLines([
      line('s', [
        span({ traceId: '0a', spanId: '01', name: 'GET /chat', attributes: [{ key: 'http.method', value: { stringValue: 'GET' } }] }),
        span({
          traceId: '0a',
          spanId: '02',
          name: 'openai.chat',
          attributes: [
            { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
            { key: 'gen_ai.completion.0.tool_calls.0.id', value: { stringValue: 'call_3' } },
          ],
        }),
      ]),
    ]);
    const [http, model] = await storeFiles([file]);
    expect(http).toMatchObject({ role: 'other', run_id: null, has_http: true, agent_like: false, output_tool_calls: false, output_attrs: null });
    expect(model).toMatchObject({ role: 'model', run_id: null, model: 'gpt-4o', has_request_model: true, agent_like: true, output_tool_calls: true });
    expect(await sqlRows(store, "SELECT output_attrs['gen_ai.completion.0.tool_calls.0.id'] AS id FROM spans WHERE output_tool_calls")).toEqual([{ id: 'call_3' }]);
  });

  it('a repeated attribute key: after ingest the first value wins', async () => {
    const other = await openStore();
    const file = writeLines([
      line('s', [
        span({
          traceId: '0a',
          spanId: '0b',
          attributes: [
            { key: 'gen_ai.tool.name', value: { stringValue: 'first' } },
            { key: 'j', value: { stringValue: 'x' } },
            { key: 'gen_ai.tool.name', value: { stringValue: 'second' } },
          ],
        }),
      ]),
    ]);
    await ingestFiles(other, [file]);
    expect(await storedRows(other, 'SELECT tool_name FROM {stored}')).toEqual([{ tool_name: 'first' }]);
    other.close();
  });
});
