import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../queries.js';
import type { Store } from '../../store.js';
import { openStore, sqlRows } from '../../../test/helpers/trace-builder.js';

/** dedupe-spans.sql (and forget-file-spans.sql): each (trace, span) once; which copy is kept. */
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

const insert = (rows: [string, string, string, number, string, number][]) =>
  store.connection.run(
    `INSERT INTO spans (trace_id, span_id, name, start_ns, end_ns, status_code, file, ingest_id) VALUES ${rows
      .map(([t, s, name, end, file, id]) => `('${t}', '${s}', '${name}', 1, ${end}, 0, '${file}', ${id})`)
      .join(', ')}`,
  );
const dedupe = (id: number) => store.run(query('dedupe-spans'), { ingest_id: id });
const spans = () => sqlRows(store, 'SELECT trace_id, span_id, name FROM spans ORDER BY trace_id, span_id');

describe('dedupe-spans', () => {
  it('keeps a span stored by an earlier ingest; within one ingest, the copy from the first file, then the one that ended last', async () => {
    await insert([
      ['01', '0a', 'first', 2, 'a', 1],
      ['01', '0b', 'other', 2, 'a', 1],
    ]);
    await dedupe(1);
    // A collector's retry in the same file (the later end wins), a copy in a later file, and the stored span read again.
    await insert([
      ['01', '0a', 'again', 9, 'a', 2],
      ['01', '0c', 'short', 2, 'b', 2],
      ['01', '0c', 'long', 5, 'b', 2],
      ['01', '0c', 'later file', 9, 'c', 2],
      ['02', '0a', 'elsewhere', 2, 'b', 2],
    ]);
    await dedupe(2);
    expect(await spans()).toEqual([
      { trace_id: '01', span_id: '0a', name: 'first' },
      { trace_id: '01', span_id: '0b', name: 'other' },
      { trace_id: '01', span_id: '0c', name: 'long' },
      { trace_id: '02', span_id: '0a', name: 'elsewhere' },
    ]);
  });

  it('forget-file-spans removes what one ingest stored from one file, nothing else', async () => {
    await insert([
      ['03', '01', 'x', 2, 'f', 3],
      ['03', '02', 'y', 2, 'g', 3],
      ['03', '03', 'z', 2, 'f', 4],
    ]);
    await store.run(query('forget-file-spans'), { ingest_id: 3, file: 'f' });
    expect((await sqlRows(store, "SELECT span_id FROM spans WHERE trace_id = '03' ORDER BY 1")).map((r) => r['span_id'])).toEqual(['02', '03']);
  });
});
