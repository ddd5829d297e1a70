import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../analyzer/queries.js';
import type { Store } from '../../analyzer/store.js';
import { ingestFiles, listValue, ns, openStore, sqlRows, traces, writeLines } from '../helpers/trace-builder.js';

/** stage.sql: OTLP/JSON into the temporary table staged, one row per span. */
const span = (o: Record<string, unknown>) => ({ name: 'n', startTimeUnixNano: '1', endTimeUnixNano: '2', ...o });
const line = (service: string, spans: Record<string, unknown>[]) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ scope: { name: 'sc' }, spans }] }] });

let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());
const stage = (files: string[], source: string | null = null) =>
  store.run(query('stage'), { files: listValue(files), compression: 'uncompressed', source, max_object_bytes: 16_777_216n });

describe('stage', () => {
  it('flattens the builder’s lines: ids, parent, times, kind, status, service, scope, attributes, events', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c1', service: 'svc-a', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.tool({ name: 'x', callId: 'k', startMs: 10, endMs: 20, startMarker: false, status: { code: 'error', message: 'boom' }, exceptions: [{ type: 'E', message: 'm' }] });
    await stage([t.write()]);
    const rows = await sqlRows(store, 'SELECT * FROM staged ORDER BY span_id');
    expect(rows).toHaveLength(2);
    const [run, tool] = rows as [Record<string, unknown>, Record<string, unknown>];
    expect(run).toMatchObject({ trace_id: '00000000000000000000000000000001', span_id: r.spanId, parent_span_id: null, kind: 1, status_code: 0, status_message: null, service: 'svc-a', scope: 'afterstop', valid: true });
    expect(run['start_ns']).toBe(ns(0));
    expect(tool).toMatchObject({ parent_span_id: r.spanId, status_code: 2, status_message: 'boom', name: 'execute_tool x' });
    expect(tool['end_ns']).toBe(ns(20));
    const attrs = await sqlRows(store, "SELECT attrs['gen_ai.tool.call.id'] AS call, attrs['afterstop.run.id'] AS run, events[1].name AS ev, events[1].attrs['exception.message'] AS msg, events[1].time_ns AS t FROM staged WHERE name LIKE 'execute_tool%'");
    expect(attrs[0]).toEqual({ call: 'k', run: r.spanId, ev: 'exception', msg: 'm', t: ns(20) });
  });

  it('decodes base64 ids, enum names of kind and status, numbers given as JSON numbers', async () => {
    const file = writeLines([line('s', [span({
      traceId: 'AAAAAAAAAAAAAAAAAAAAAQ==', spanId: 'AAAAAAAAAAI=', parentSpanId: 'AAAAAAAAAAM=', kind: 'SPAN_KIND_CLIENT',
      startTimeUnixNano: 1790000000000000000, endTimeUnixNano: '1790000000000000005', status: { code: 'STATUS_CODE_ERROR', message: '' },
      attributes: [{ key: 'n', value: { intValue: 800 } }, { key: 'd', value: { doubleValue: 0.25 } }, { key: 'b', value: { boolValue: true } }, { key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }] } } }],
    })])]);
    await stage([file]);
    const [row] = await sqlRows(store, "SELECT trace_id, span_id, parent_span_id, kind, status_code, status_message, start_ns, attrs['n'] AS n, attrs['d'] AS d, attrs['b'] AS b, json_extract_string(attrs['a'], '$.values[0].stringValue') AS a FROM staged");
    expect(row).toEqual({ trace_id: '00000000000000000000000000000001', span_id: '0000000000000002', parent_span_id: '0000000000000003', kind: 3, status_code: 2, status_message: null, start_ns: ns(0), n: '800', d: '0.25', b: 'true', a: 'x' });
  });

  it('marks spans without trace id, span id or times invalid', async () => {
    const file = writeLines([line('s', [
      span({ traceId: '01', spanId: '02' }),
      span({ traceId: '', spanId: '03' }),
      span({ traceId: '01', spanId: '04', startTimeUnixNano: undefined }),
      span({ traceId: '01', spanId: '05', endTimeUnixNano: 'soon' }),
    ])]);
    await stage([file]);
    const rows = await sqlRows(store, "SELECT coalesce(span_id, '?') AS id, valid FROM staged ORDER BY 1");
    expect(rows).toEqual([{ id: '02', valid: true }, { id: '03', valid: false }, { id: '04', valid: false }, { id: '05', valid: false }]);
  });

  it('records the file read, or the source given', async () => {
    const file = writeLines([line('s', [span({ traceId: '01', spanId: '02' })])]);
    await stage([file]);
    expect((await sqlRows(store, 'SELECT file FROM staged'))[0]!['file']).toBe(file);
    await stage([file], 'original.jsonl');
    expect((await sqlRows(store, 'SELECT file FROM staged'))[0]!['file']).toBe('original.jsonl');
  });

  it('a repeated attribute key: after ingest (fast or careful path) the first value wins', async () => {
    const other = await openStore();
    const file = writeLines([line('s', [span({ traceId: '0a', spanId: '0b', attributes: [
      { key: 'k', value: { stringValue: 'first' } }, { key: 'j', value: { stringValue: 'x' } }, { key: 'k', value: { stringValue: 'second' } },
    ] })])]);
    await ingestFiles(other, [file]);
    expect(await sqlRows(other, "SELECT attrs['k'] AS k, attrs['j'] AS j FROM spans")).toEqual([{ k: 'first', j: 'x' }]);
    other.close();
  });
});
