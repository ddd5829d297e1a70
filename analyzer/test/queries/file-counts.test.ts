import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../queries.js';
import type { Store } from '../../store.js';
import { listValue, openStore, queryRows, writeLines } from '../../../test/helpers/trace-builder.js';

/** file-counts.sql: per file of one ingest, spans read and spans that cannot be used. */
const line = (spans: Record<string, unknown>[]) => JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'sc' }, spans }] }] });
const span = (spanId: string, o: Record<string, unknown> = {}) => ({ traceId: '01', spanId, name: 'n', startTimeUnixNano: '1', endTimeUnixNano: '2', ...o });

let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

describe('file-counts', () => {
  it('counts spans and invalid spans per file of the ingest, of the files asked for, ordered by file', async () => {
    const a = writeLines([line([span('01'), span('02', { endTimeUnixNano: null })]), line([span('01')])], 'a.jsonl');
    const b = writeLines([line([span('03', { spanId: '' }), span('04', { traceId: null }), span('05')])], 'b.jsonl');
    const store1 = (files: string[], id: number) => store.run(query('store-files'), { files: listValue(files), compression: 'uncompressed', source: null, max_object_bytes: 16_777_216n, ingest_id: id });
    await store1([b, a], 7);
    await store1([a], 8);
    expect(await queryRows(store, 'file-counts', { ingest_id: 7, files: listValue([a, b]) })).toEqual([a, b].sort().map((file) => (file === a ? { file, spans: 3, invalid: 1 } : { file, spans: 3, invalid: 2 })));
    expect(await queryRows(store, 'file-counts', { ingest_id: 8, files: listValue([a, b]) })).toEqual([{ file: a, spans: 3, invalid: 1 }]);
    // Only the files asked for (an ingest asks after each batch it reads).
    expect(await queryRows(store, 'file-counts', { ingest_id: 7, files: listValue([b, '/elsewhere.jsonl']) })).toEqual([{ file: b, spans: 3, invalid: 2 }]);
  });
});
