import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listValue } from '@duckdb/node-api';
import { query } from './queries.js';
import type { Store } from './store.js';
import { SCOPE_FACTS } from './facts.js';
import { futureFromNs } from './report-time.js';

/**
 * The store's spans as Parquet files, a folder per day (of the span's start,
 * UTC) and service. `span_files` in the catalog says which files are live:
 * an ingest reads back the days it touches, and writes them anew (one file per
 * day and service: small files do not pile up), and the new files replace the
 * old in one transaction. A write that dies before it leaves unrecorded files,
 * which the next ingest removes; the live set is never half replaced.
 */

const abs = (store: Store, rel: string): string => path.join(store.folder, rel);
const rel = (store: Store, file: string): string => path.relative(store.folder, file).split(path.sep).join('/');

/** Read back the live files of the days this ingest's spans fall on (and the days beside them). */
export async function loadTouchedSpanFiles(store: Store, ingestId: number): Promise<number> {
  const files = await store.typedRows('touched-span-files', { ingest_id: ingestId });
  if (files.length > 0) await store.run(query('load-span-files'), { files: listValue(files.map((f) => abs(store, f.path))) });
  return files.length;
}

/**
 * Up to this many partitions, writeSpanFiles writes each with a COPY of its
 * own (write-span-partition.sql), twice as fast as DuckDB's PARTITION_BY; past
 * it, one PARTITION_BY COPY (one scan of the spans, however many partitions).
 */
const COPY_PER_PARTITION_UP_TO = 32;

/**
 * Write the spans table to new Parquet files, make them the live files of
 * their days, delete the files they replace, and empty the spans table.
 * `keepReplaced`: the files replaced are not deleted but returned (their
 * paths, absolute), for a migration that deletes them once its catalog is in
 * place (store-migration.ts).
 */
export async function writeSpanFiles(store: Store, options: { keepReplaced?: boolean } = {}): Promise<string[]> {
  const kept: string[] = [];
  fs.mkdirSync(store.spansDir, { recursive: true });
  const stamp = `part-${Date.now()}-${randomUUID().slice(0, 8)}`;
  const partitions = await store.typedRows('span-partitions');
  // Rows in any order within a file: nothing reads them in order.
  const files = await store.inAnyOrder(async () => {
    if (partitions.length > COPY_PER_PARTITION_UP_TO) {
      const written = await store.typedRows('write-span-files', { dir: store.spansDir, pattern: `${stamp}-{i}` });
      return written.flatMap((w) => w.Files ?? []);
    }
    const out: string[] = [];
    for (const p of partitions) {
      const file = path.join(store.spansDir, ...p.folder.split('/'), `${stamp}-0.parquet`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      await store.run(query('write-span-partition'), { day: p.day, service_folder: p.service_folder, file });
      out.push(file);
    }
    return out;
  });
  if (files.length > 0) {
    const counts = await store.typedRows('file-span-counts', { files: listValue(files) });
    const days = [...new Set(counts.map((c) => c.day))];
    let replaced: { path: string }[];
    try {
      replaced = await store.transaction(async () => {
        const old = await store.typedRows('replace-span-files', { days: listValue(days) });
        await store.run(query('record-span-files'), {
          paths: listValue(counts.map((c) => rel(store, c.file))),
          days: listValue(counts.map((c) => c.day)),
          spans: listValue(counts.map((c) => BigInt(c.spans))),
          max_ingest_ids: listValue(counts.map((c) => Number(c.max_ingest_id))),
        });
        return old;
      });
    } catch (error) {
      for (const f of files) fs.rmSync(f, { force: true });
      throw error;
    }
    if (options.keepReplaced === true) kept.push(...replaced.map((r) => abs(store, r.path)));
    else {
      for (const r of replaced) fs.rmSync(abs(store, r.path), { force: true });
      removeEmptyFolders(store.spansDir);
    }
  }
  await store.run(query('clear-working-spans'));
  return kept;
}

export interface PruneSummary {
  /** The days removed (YYYY-MM-DD), the files and spans they held, and the runs forgotten with them. */
  days: string[];
  files: number;
  spans: number;
  runs: number;
}

/**
 * Retention: remove the days wholly before `beforeNs`'s day, and the runs that start on them; and what is
 * stamped in the future (clock skew, bad data): the days wholly after `futureNs`'s day and the runs that
 * start at or after it (default: the future of a report made now, report.ts).
 */
export async function pruneSpanFiles(store: Store, beforeNs: bigint, futureNs: bigint = futureFromNs(undefined)): Promise<PruneSummary> {
  const { files, runs } = await store.transaction(async () => {
    const files = await store.typedRows('prune-span-files', { before_ns: beforeNs, future_ns: futureNs });
    const runs = await store.typedRows('prune-run-facts', { before_ns: beforeNs, future_ns: futureNs });
    await store.script(query('prune-facts'));
    for (const name of SCOPE_FACTS) await store.run(query(name));
    // Remembered, so that a trace file read again does not bring those days back.
    await store.run(query('set-pruned-before'), { day: new Date(Number(beforeNs / 1_000_000n)).toISOString().slice(0, 10) });
    return { files, runs };
  });
  for (const f of files) fs.rmSync(abs(store, f.path), { force: true });
  if (fs.existsSync(store.spansDir)) removeEmptyFolders(store.spansDir);
  await store.connection.run('CHECKPOINT');
  return { days: [...new Set(files.map((f) => f.day))].sort(), files: files.length, spans: files.reduce((n, f) => n + Number(f.spans), 0), runs: runs.length };
}

/** The live files a report over the window reads (absolute paths). */
export async function reportSpanFiles(store: Store, sinceNs: bigint | null, untilNs: bigint | null): Promise<string[]> {
  const rows = await store.typedRows('report-span-files', { since_ns: sinceNs, until_ns: untilNs });
  return rows.map((r) => abs(store, r.path));
}

/** The name writeSpanFiles gives a file (`part-<ms>-<8 hex>-<i>.parquet`) in a `day=…/service_folder=…` folder. */
const WRITTEN_FILE = /(^|[\\/])day=\d{4}-\d{2}-\d{2}[\\/]service_folder=[^\\/]*[\\/]part-\d+-[0-9a-f]{8}-\d+\.parquet$/;

/**
 * Delete Parquet files no write made live (a write that died before it recorded them): only files that
 * afterstop names and places as it writes them. Anything else in the folder is not afterstop's, and is left.
 */
export async function sweepUnrecordedSpanFiles(store: Store): Promise<number> {
  if (!fs.existsSync(store.spansDir)) return 0;
  const live = new Set((await store.typedRows('report-span-files', { since_ns: null, until_ns: null })).map((r) => abs(store, r.path)));
  let removed = 0;
  for (const entry of fs.readdirSync(store.spansDir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && WRITTEN_FILE.test(path.relative(store.spansDir, file)) && !live.has(file)) {
      fs.rmSync(file, { force: true });
      removed++;
    }
  }
  removeEmptyFolders(store.spansDir);
  return removed;
}

/** Remove the empty folders under `dir` (not `dir` itself). */
export function removeEmptyFolders(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = path.join(dir, entry.name);
    removeEmptyFolders(sub);
    if (fs.readdirSync(sub).length === 0) fs.rmdirSync(sub);
  }
}
