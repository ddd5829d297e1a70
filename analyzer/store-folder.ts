/**
 * The files of a store's folder around its catalog: the catalog being created or migrated (named with its
 * process's pid, so that what a killed one left is known and removed), what a first open leaves in a folder
 * before its catalog is in place, and the wait for another process that holds the catalog.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { InputError } from './errors.js';

/** The catalog's file in a store's folder. */
export const CATALOG = 'catalog.duckdb';

/** The suffix, before a pid, of a catalog being created (Store.createCatalog; creationPid reads it back). */
export const CREATING = '.creating-';

/** A catalog file (one being created, a migration's copy) and its write-ahead log, removed. */
export function removeCatalogFile(file: string): void {
  for (const f of [file, `${file}.wal`]) fs.rmSync(f, { force: true });
}

/** What a first open or a migration left when it was killed before its catalog was in place: its creation or copy, when its process is gone. */
export function removeDeadCreations(folder: string): void {
  for (const name of fs.readdirSync(folder)) {
    const pid = creationPid(name);
    if (pid !== undefined && !isAlive(pid)) fs.rmSync(path.join(folder, name), { force: true });
  }
}

/** The pid in the name of a catalog being created or migrated (or its write-ahead log); undefined for any other name. */
function creationPid(name: string): number | undefined {
  const pid = /^catalog\.duckdb\.(?:creating|migrating)-(\d+)(?:\.wal)?$/.exec(name)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a folder holds nothing, or only what a first open leaves before its
 * catalog is in place: an empty `tmp` folder and catalogs being created.
 */
export function onlyFirstOpenLeftovers(folder: string): boolean {
  const entries = fs.readdirSync(folder, { withFileTypes: true });
  return entries.every((e) => (e.isDirectory() ? e.name === 'tmp' && fs.readdirSync(path.join(folder, 'tmp')).length === 0 : e.isFile() && creationPid(e.name) !== undefined));
}

/** How long opening a store waits for another afterstop that holds it (AFTERSTOP_LOCK_WAIT_MS, default 30 s). */
export const DEFAULT_LOCK_WAIT_MS = 30_000;

/**
 * Open the catalog; while another process holds it (a nightly job still
 * running when the next starts, an `afterstop query` left open), wait for it,
 * then fail clearly. DuckDB lets one process write a database file at a time:
 * nothing is shared, so nothing is corrupted.
 */
export async function createWaitingForLock(file: string, options: Record<string, string>, where: string): Promise<DuckDBInstance> {
  const waitMs = Number(process.env['AFTERSTOP_LOCK_WAIT_MS'] ?? DEFAULT_LOCK_WAIT_MS);
  const deadline = Date.now() + (Number.isFinite(waitMs) && waitMs >= 0 ? waitMs : DEFAULT_LOCK_WAIT_MS);
  for (;;) {
    try {
      return await DuckDBInstance.create(file, options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!/Could not set lock on file/.test(message)) throw error;
      if (Date.now() >= deadline) {
        const holder = /Conflicting lock is held in (.+?)(?: \(PID (\d+)\))?[.\s]/.exec(message);
        throw new InputError(`${where}: the store is in use by another process${holder?.[2] ? ` (pid ${holder[2]})` : ''}; waited ${Math.round((waitMs || 0) / 1000)} s (AFTERSTOP_LOCK_WAIT_MS)`, {
          path: where,
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
