import * as fs from 'node:fs';
import { listValue } from '@duckdb/node-api';
import { deriveTouchedFacts } from './facts.js';
import { query } from './queries.js';
import { removeEmptyFolders, reportSpanFiles, writeSpanFiles } from './span-files.js';
import { removeCatalogFile } from './store-folder.js';
import type { Store } from './store.js';

/**
 * A store written by the previous release, brought to this one's layout
 * rather than refused: its history is not lost on an upgrade.
 *
 * Versions 12 to 15 differ from 16 in columns only (15 lacks the spans'
 * process_key, request_span_id, commit_round_trip_ms, db_system,
 * messaging_system, http_status and http_method, issue 49, and the tables
 * of the far side's witness; 14 also the spans'
 * MCP columns, mcp_method, mcp_request_id, mcp_side, mcp_server,
 * mcp_cancel_via and mcp_handler, and tool_foreign, the tool calls' MCP columns
 * and the runs' mcp_handler; 13 also the spans'
 * fence_passed; 12 also the spans' uninstrumented, provider, out_of_sight,
 * commit_count, commit_pending and body_detached, the runs' uninstrumented and
 * the model calls' provider), and in how some facts are
 * derived from the spans. So the spans it keeps are read back, every fact is
 * derived again from them by this release's queries, and the spans are
 * written to new Parquet files with this release's columns (what an earlier version
 * did not keep of an attribute is NULL: the trace files stay the record).
 *
 * Safely: the work is done in a copy of the catalog (`catalog.duckdb.migrating-<pid>`)
 * while the store's own catalog is held open (no other afterstop opens it
 * meanwhile) and unchanged but for a checkpoint; the copy is renamed over it
 * when done. A crash before the rename leaves the store as it was (the next
 * open migrates again; the copy and the new Parquet files, which no catalog
 * names, are removed: the copy by the next open, the files by the next
 * ingest). The Parquet files the copy replaced are deleted after the rename.
 */

/** The versions this release migrates (to STORE_VERSION); any other is refused, unchanged. */
export const MIGRATES_FROM: readonly string[] = ['12', '13', '14', '15'];

/** The suffix, before a pid, of a catalog being migrated (store-folder.ts removes one whose process is gone). */
export const MIGRATING = '.migrating-';

/**
 * Migrate the catalog `catalog` of `held` (open, so locked) of version
 * {@link MIGRATES_FROM} to `version` (STORE_VERSION): `openCopy` opens the copy as a store. `held` stays
 * open; its caller closes it and opens the migrated catalog.
 */
export async function migrateStore(held: Store, catalog: string, version: string, openCopy: (file: string) => Promise<Store>): Promise<void> {
  // Its write-ahead log into the file, so that a copy of the file is the whole store.
  await held.connection.run('CHECKPOINT');
  const copy = `${catalog}${MIGRATING}${process.pid}`;
  removeCatalogFile(copy);
  let replaced: string[];
  try {
    fs.copyFileSync(catalog, copy);
    const store = await openCopy(copy);
    try {
      replaced = await rebuild(store, version);
      await store.connection.run('CHECKPOINT');
    } finally {
      store.close();
    }
    fs.renameSync(copy, catalog);
  } catch (error) {
    removeCatalogFile(copy);
    throw error;
  }
  for (const file of replaced) fs.rmSync(file, { force: true });
  if (fs.existsSync(held.spansDir)) removeEmptyFolders(held.spansDir);
}

/** In the copy: this release's tables, every span read back, every fact derived again, the spans written anew; the files replaced. */
async function rebuild(store: Store, version: string): Promise<string[]> {
  await store.run(query('migrate-store'), { version });
  await store.script(query('schema'));
  await store.script(query('macros'));
  const files = await reportSpanFiles(store, null, null);
  if (files.length === 0) return [];
  await store.run(query('load-span-files'), { files: listValue(files) });
  // As an ingest does for the traces it touched (ingest.ts), for every trace.
  await store.script(query('touch-all-traces'));
  await deriveTouchedFacts(store);
  return writeSpanFiles(store, { keepReplaced: true });
}
