import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listValue } from '@duckdb/node-api';
import { query } from '../../queries.js';
import { Store } from '../../store.js';
import { queryRows, sqlRows } from '../../../test/helpers/trace-builder.js';

/**
 * The store's bookkeeping queries: span-count, ingested-files, record-files,
 * forget-skipped, record-skipped, skipped-lines, the ingest's session lists (ingest-lists.sql and the queries over
 * them), next-ingest-id, note-touched, drop-invalid,
 * drop-staged, load-prices, store-version, set-store-version.
 */
let store: Store;
beforeAll(async () => {
  store = await Store.open(':memory:');
});
afterAll(() => store.close());

describe('bookkeeping queries', () => {
  it('record-files and ingested-files: one row per file, replaced when read again', async () => {
    const files = (sizes: bigint[]) => ({
      paths: listValue(['/t/a.jsonl', '/t/z.jsonl']),
      sizes: listValue(sizes),
      mtimes: listValue([1.5, 2.5]),
      spans: listValue([3n, 4n]),
      skipped: listValue([0n, 1n]),
    });
    await store.run(query('record-files'), files([10n, 11n]));
    await store.run(query('record-files'), files([20n, 21n]));
    expect(await queryRows(store, 'ingested-files')).toEqual([
      { path: '/t/a.jsonl', size: 20, mtime_ms: 1.5 },
      { path: '/t/z.jsonl', size: 21, mtime_ms: 2.5 },
    ]);
    await store.connection.run('DELETE FROM ingested_files');
  });

  it('record-skipped, skipped-lines and forget-skipped: the lines of the files asked for, in order; forgotten per file', async () => {
    await store.run(query('record-skipped'), { files: listValue(['/t/b.jsonl', '/t/b.jsonl', '/t/c.jsonl']), lines: listValue([7n, 2n, 1n]), reasons: listValue(['x', 'y', 'z']) });
    const rows = await queryRows(store, 'skipped-lines', { files: listValue(['/t/b.jsonl']) });
    expect(rows).toEqual([
      { file: '/t/b.jsonl', line: 2, reason: 'y' },
      { file: '/t/b.jsonl', line: 7, reason: 'x' },
    ]);
    await store.run(query('forget-skipped'), { files: listValue(['/t/b.jsonl', '/t/none.jsonl']) });
    expect(await queryRows(store, 'skipped-lines', { files: listValue(['/t/b.jsonl', '/t/c.jsonl']) })).toEqual([{ file: '/t/c.jsonl', line: 1, reason: 'z' }]);
  });

  it("ingest-lists, add-input-files, seen-files, add-pending-files, add-pending-skipped, record-pending, input-skipped-lines, input-skipped-count: an ingest's files held in the session until recorded", async () => {
    await store.script(query('ingest-lists'));
    await store.run(query('record-files'), { paths: listValue(['/t/old.jsonl']), sizes: listValue([5n]), mtimes: listValue([1.5]), spans: listValue([1n]), skipped: listValue([0n]) });
    await store.run(query('record-skipped'), { files: listValue(['/t/old.jsonl', '/t/other.jsonl']), lines: listValue([9n, 9n]), reasons: listValue(['before', 'not named']) });
    await store.run(query('add-input-files'), { paths: listValue(['/t/old.jsonl', '/t/new.jsonl', '/t/again.jsonl']) });
    expect(await queryRows(store, 'seen-files', { paths: listValue(['/t/old.jsonl', '/t/new.jsonl']) })).toEqual([{ path: '/t/old.jsonl', size: 5, mtime_ms: 1.5 }]);
    await store.run(query('add-pending-files'), {
      paths: listValue(['/t/old.jsonl', '/t/new.jsonl', '/t/again.jsonl']),
      sizes: listValue([6n, 7n, 8n]),
      mtimes: listValue([2.5, 3.5, 4.5]),
      spans: listValue([2n, 3n, 0n]),
      again: listValue([false, false, true]),
    });
    await store.run(query('add-pending-skipped'), {
      files: listValue(['/t/new.jsonl', '/t/new.jsonl', '/t/again.jsonl', '/t/new.jsonl']),
      lines: listValue([4n, 2n, 0n, 2n]),
      reasons: listValue(['b', 'a', 'later', 'a2']),
    });
    // Nothing recorded until record-pending.
    expect(await queryRows(store, 'input-skipped-count')).toEqual([{ n: 1 }]);
    await store.transaction(() => store.script(query('record-pending')));
    expect(await queryRows(store, 'input-skipped-lines', { limit: 10n })).toEqual([
      { file: '/t/again.jsonl', line: 0, reason: 'later' },
      { file: '/t/new.jsonl', line: 2, reason: 'a' },
      { file: '/t/new.jsonl', line: 2, reason: 'a2' },
      { file: '/t/new.jsonl', line: 4, reason: 'b' },
    ]);
    expect(await queryRows(store, 'input-skipped-lines', { limit: 2n })).toHaveLength(2);
    expect(await queryRows(store, 'input-skipped-count')).toEqual([{ n: 4 }]);
    expect(await sqlRows(store, 'SELECT path, size, spans, skipped FROM ingested_files ORDER BY path')).toEqual([
      { path: '/t/new.jsonl', size: 7, spans: 3, skipped: 3 },
      { path: '/t/old.jsonl', size: 6, spans: 2, skipped: 0 },
    ]);
    expect(await sqlRows(store, 'SELECT (SELECT count(*) FROM pending_files) + (SELECT count(*) FROM pending_skipped) AS n')).toEqual([{ n: 0 }]);
    await store.connection.run('DELETE FROM ingested_files; DELETE FROM skipped_lines');
  });

  it('next-ingest-id, note-touched, drop-invalid: the traces of an ingest, once; its unusable spans removed', async () => {
    expect(await queryRows(store, 'next-ingest-id')).toEqual([{ id: 1 }]);
    await store.connection.run(`INSERT INTO spans (trace_id, span_id, name, start_ns, end_ns, status_code, ingest_id) VALUES
      ('t0', 's0', 'n', 1, 2, 0, 1), ('t1', 's1', 'n', 1, 2, 0, 2), ('t1', 's2', 'n', 1, 2, 0, 2), (NULL, 's3', 'n', 1, 2, 0, 2), ('t2', 's4', 'n', NULL, 2, 0, 2)`);
    expect(await queryRows(store, 'next-ingest-id')).toEqual([{ id: 3 }]);
    await store.run(query('drop-invalid'), { ingest_id: 2 });
    await store.run(query('note-touched'), { ingest_id: 2 });
    expect(await sqlRows(store, 'SELECT trace_id FROM touched_traces')).toEqual([{ trace_id: 't1' }]);
    expect(await sqlRows(store, 'SELECT span_id FROM spans ORDER BY 1')).toEqual([{ span_id: 's0' }, { span_id: 's1' }, { span_id: 's2' }]);
    await store.connection.run('DELETE FROM spans');
  });

  it('load-prices: one row per provider, model and minute, with its tier; also for an empty table', async () => {
    const tier = { tier_above: 200000, tier_input: 6, tier_output: 22.5 };
    await store.run(query('load-prices'), {
      prices: JSON.stringify([
        { provider: 'anthropic', model: 'claude-sonnet-4-5', minute: 29833333, input: 3, output: 15, ...tier },
        { provider: '', model: 'b', minute: 1, input: 2.5, output: 4, tier_above: -1, tier_input: 2.5, tier_output: 4 },
      ]),
    });
    expect(await sqlRows(store, 'SELECT * FROM report_prices ORDER BY model')).toEqual([
      { provider: '', model: 'b', minute: 1, input_usd_per_mtok: 2.5, output_usd_per_mtok: 4, tier_above_input_tokens: -1, tier_input_usd_per_mtok: 2.5, tier_output_usd_per_mtok: 4 },
      {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        minute: 29833333,
        input_usd_per_mtok: 3,
        output_usd_per_mtok: 15,
        tier_above_input_tokens: 200000,
        tier_input_usd_per_mtok: 6,
        tier_output_usd_per_mtok: 22.5,
      },
    ]);
    await store.run(query('load-prices'), { prices: '[]' });
    expect(await sqlRows(store, 'SELECT count(*) AS n FROM report_prices')).toEqual([{ n: 0 }]);
  });

  it('span-count, store-version: a new store is marked with the layout version when opened', async () => {
    expect(await queryRows(store, 'span-count')).toEqual([{ n: 0 }]);
    const [row] = await queryRows(store, 'store-version');
    expect(row?.['value']).toMatch(/^\d+$/);
  });
});
