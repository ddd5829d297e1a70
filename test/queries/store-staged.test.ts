import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../analyzer/queries.js';
import type { Store } from '../../analyzer/store.js';
import { listValue, openStore, sqlRows, writeLines } from '../helpers/trace-builder.js';

/** store-staged.sql: valid staged spans into spans, each (trace, span) once. */
const line = (spans: Record<string, unknown>[]) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'sc' }, spans }] }] });
const span = (spanId: string, name: string, o: Record<string, unknown> = {}) => ({ traceId: '01', spanId, name, startTimeUnixNano: '1', endTimeUnixNano: '2', ...o });

let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());
const stageAndStore = async (lines: string[]) => {
  await store.run(query('stage'), { files: listValue([writeLines(lines)]), compression: 'uncompressed', source: null, max_object_bytes: 16_777_216n });
  await store.run(query('store-staged'));
};

describe('store-staged', () => {
  it('stores valid spans once (a collector retry, a file read again) and the first copy wins', async () => {
    await stageAndStore([line([span('0a', 'first'), span('0b', 'other')]), line([span('0a', 'retry')])]);
    await stageAndStore([line([span('0a', 'again'), span('0c', 'new')])]);
    expect(await sqlRows(store, 'SELECT span_id, name FROM spans ORDER BY span_id')).toEqual([
      { span_id: '0a', name: 'first' }, { span_id: '0b', name: 'other' }, { span_id: '0c', name: 'new' },
    ]);
  });

  it('leaves invalid spans out', async () => {
    await stageAndStore([line([span('0d', 'no times', { startTimeUnixNano: null }), span('', 'no id')])]);
    expect(await sqlRows(store, "SELECT count(*) AS n FROM spans WHERE span_id = '0d' OR name = 'no id'")).toEqual([{ n: 0 }]);
  });

  it('the same span id in another trace is another span', async () => {
    await stageAndStore([line([span('0a', 'elsewhere', { traceId: '02' })])]);
    expect(await sqlRows(store, "SELECT trace_id FROM spans WHERE span_id = '0a' ORDER BY 1")).toEqual([{ trace_id: '01' }, { trace_id: '02' }]);
  });
});
