import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listValue } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../queries.js';
import { STORE_VERSION, Store } from '../../store.js';
import { ingestFiles, queryRows, sqlRows } from '../../../test/helpers/trace-builder.js';

/**
 * The queries of the store's Parquet span files (analyzer/span-files.ts) and
 * of its retention and version, each on its own: file-span-counts,
 * load-span-files, span-partitions, write-span-partition, touched-span-files, record-span-files, prepare-spans,
 * prepare-spans-view, prepare-spans-empty, set-pruned-before,
 * pruned-span-counts, drop-pruned, set-store-version (with store-version).
 */
const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));
let store: Store;
let files: string[];
let total: number;
beforeAll(async () => {
  store = await Store.open(':memory:');
  await ingestFiles(store, [`${golden}g2-ghost-email.jsonl`, `${golden}g5-replay.jsonl`]);
  const recorded = await sqlRows(store, 'SELECT path, spans FROM span_files ORDER BY path');
  files = recorded.map((r) => path.join(store.folder, String(r['path'])));
  total = recorded.reduce((n, r) => n + Number(r['spans']), 0);
});
afterAll(() => store.close());
const count = async (sql: string): Promise<number> => Number((await sqlRows(store, sql))[0]!['n']);

describe('span file queries', () => {
  it('file-span-counts: each file as span_files records it, read from the file itself', async () => {
    const counts = await queryRows(store, 'file-span-counts', { files: listValue(files) });
    const recorded = await sqlRows(store, "SELECT spans, strftime(day, '%Y-%m-%d') AS day FROM span_files ORDER BY path");
    expect(counts.map((c) => [c['spans'], c['day']])).toEqual(recorded.map((r) => [r['spans'], r['day']]));
    expect(counts.every((c) => Number(c['max_ingest_id']) >= 1)).toBe(true);
  });

  it('load-span-files: the files back into the working spans table, every span of them', async () => {
    expect(await count('SELECT count(*) AS n FROM spans')).toBe(0);
    await store.run(query('load-span-files'), { files: listValue(files) });
    expect(await count('SELECT count(*) AS n FROM spans')).toBe(total);
    await store.connection.run('DELETE FROM spans');
  });

  it('span-partitions and write-span-partition: one row per day and service, with its folder as DuckDB names it; each written whole to its file', async () => {
    await store.run(query('load-span-files'), { files: listValue(files) });
    const partitions = await queryRows(store, 'span-partitions');
    expect(partitions.map((p) => p['folder'])).toEqual(files.map((f) => path.relative(path.join(store.folder, 'spans'), path.dirname(f))));
    expect(partitions.reduce((n, p) => n + Number(p['spans']), 0)).toBe(total);
    const out = path.join(store.folder, 'probe.parquet');
    for (const p of partitions) {
      await store.run(query('write-span-partition'), { day: p['day'] as string, service_folder: p['service_folder'] as string, file: out });
      const written = await store.connection.runAndReadAll('SELECT count(*)::INT AS n FROM read_parquet($file) WHERE service_folder IS NOT DISTINCT FROM $folder', { file: out, folder: p['service_folder'] as string });
      expect(written.getRowObjectsJS()[0]!['n']).toBe(Number(p['spans']));
    }
    await store.connection.run('DELETE FROM spans');
  });

  it('touched-span-files: the files of the days an ingest touches and the day either side, not the others', async () => {
    await store.run(query('load-span-files'), { files: listValue(files) });
    const day = await count('SELECT min(start_ns) AS n FROM spans');
    await store.connection.run('CREATE OR REPLACE TEMP TABLE touched_traces AS SELECT NULL::VARCHAR AS trace_id WHERE false');
    await store.connection.run(`UPDATE spans SET ingest_id = 99 WHERE start_ns = ${day}`);
    expect((await queryRows(store, 'touched-span-files', { ingest_id: 99 })).length).toBeGreaterThan(0);
    // Ten days on, nothing stored is near.
    await store.connection.run(`UPDATE spans SET ingest_id = 98, start_ns = start_ns + ${10 * 86_400}000000000 WHERE ingest_id = 99`);
    expect(await queryRows(store, 'touched-span-files', { ingest_id: 98 })).toEqual([]);
    await store.connection.run('DELETE FROM spans');
  });

  it("record-span-files: a write's files as live, with their day, spans and ingest number", async () => {
    await store.run(query('record-span-files'), { paths: listValue(['spans/x/a.parquet']), days: listValue(['2026-12-01']), spans: listValue([5n]), max_ingest_ids: listValue([3]) });
    expect(await sqlRows(store, "SELECT strftime(day, '%Y-%m-%d') AS day, spans, max_ingest_id FROM span_files WHERE path = 'spans/x/a.parquet'")).toEqual([{ day: '2026-12-01', spans: 5, max_ingest_id: 3 }]);
    await store.connection.run("DELETE FROM span_files WHERE path = 'spans/x/a.parquet'");
  });

  it('prepare-spans and prepare-spans-view: report_spans reads the files given; prepare-spans-empty: none, with the same columns', async () => {
    await store.run(query('prepare-spans'), { files: listValue(files.slice(0, 1)) });
    await store.run(query('prepare-spans-view'));
    const first = Number((await sqlRows(store, 'SELECT spans FROM span_files ORDER BY path LIMIT 1'))[0]!['spans']);
    expect(await count('SELECT count(*) AS n FROM report_spans')).toBe(first);
    const columns = async (table: string) => (await sqlRows(store, `SELECT column_name FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`)).map((r) => r['column_name']);
    const viewColumns = await columns('report_spans');
    await store.run(query('prepare-spans-empty'));
    expect(await count('SELECT count(*) AS n FROM report_spans')).toBe(0);
    expect(await columns('report_spans')).toEqual(viewColumns);
    expect(viewColumns).toEqual(await columns('spans'));
  });

  it('set-pruned-before: the first day kept, never moved back', async () => {
    const kept = async () => (await sqlRows(store, "SELECT value FROM store_meta WHERE key = 'pruned_before'"))[0]?.['value'];
    await store.run(query('set-pruned-before'), { day: '2026-01-10' });
    await store.run(query('set-pruned-before'), { day: '2026-01-05' });
    expect(await kept()).toBe('2026-01-10');
    await store.run(query('set-pruned-before'), { day: '2026-01-12' });
    expect(await kept()).toBe('2026-01-12');
  });

  it("pruned-span-counts and drop-pruned: an ingest's spans before the first day kept, counted per file, then removed", async () => {
    await store.run(query('load-span-files'), { files: listValue(files) });
    await store.connection.run('UPDATE spans SET ingest_id = 7');
    // Keep from the day after the spans: all of them are on days removed.
    const after = new Date(Number(BigInt(await count('SELECT max(start_ns) AS n FROM spans')) / 1_000_000n) + 86_400_000).toISOString().slice(0, 10);
    await store.connection.run(`INSERT OR REPLACE INTO store_meta VALUES ('pruned_before', '${after}')`);
    const counts = await queryRows(store, 'pruned-span-counts', { ingest_id: 7 });
    expect(counts.reduce((n, c) => n + Number(c['spans']), 0)).toBe(total);
    expect(counts.every((c) => c['kept_from'] === after)).toBe(true);
    expect(await queryRows(store, 'pruned-span-counts', { ingest_id: 8 })).toEqual([]);
    await store.run(query('drop-pruned'), { ingest_id: 8 });
    expect(await count('SELECT count(*) AS n FROM spans')).toBe(total);
    await store.run(query('drop-pruned'), { ingest_id: 7 });
    expect(await count('SELECT count(*) AS n FROM spans')).toBe(0);
  });

  it("set-store-version and store-version: a new store is marked with its layout's version", async () => {
    expect(await queryRows(store, 'store-version')).toEqual([{ value: STORE_VERSION }]);
    await store.connection.run("DELETE FROM store_meta WHERE key = 'store_version'");
    expect(await queryRows(store, 'store-version')).toEqual([]);
    await store.run(query('set-store-version'), { version: 'x' });
    expect(await queryRows(store, 'store-version')).toEqual([{ value: 'x' }]);
  });
});
