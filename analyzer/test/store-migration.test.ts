import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FACTS, SCOPE_FACTS } from '../facts.js';
import { analyze } from '../index.js';
import { query } from '../queries.js';
import { STORE_VERSION, Store } from '../store.js';
import type { LeakReport } from '../types.js';

/**
 * A store the previous release wrote (version 12, test/fixtures/store-v12, written by that release's own CLI)
 * is migrated on open, not refused: its report is that of a store that read the same traces afresh. A store
 * this release cannot migrate is refused with its path and what to do, and left byte for byte as it was.
 */
const fixtureOf = (version: '12' | '13' | '14' | '15') => fileURLToPath(new URL(`../../test/fixtures/store-v${version}/`, import.meta.url));
const golden = fileURLToPath(new URL('../../test/fixtures/golden/', import.meta.url));
const prices = `${golden}prices.json`;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-migration-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of the version 12 (or 13, 14) store, as its release left it. */
function storeV12(name = 'store', version: '12' | '13' | '14' | '15' = '12'): string {
  const fixture = fixtureOf(version);
  const db = path.join(dir, name);
  fs.mkdirSync(db);
  fs.writeFileSync(path.join(db, 'catalog.duckdb'), gunzipSync(fs.readFileSync(path.join(fixture, 'catalog.duckdb.gz'))));
  fs.cpSync(path.join(fixture, 'spans'), path.join(db, 'spans'), { recursive: true });
  return db;
}

/** Every file under a folder with its bytes' hash: the store as it is on disk. */
function snapshot(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(folder, file)] = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  }
  return out;
}

/** Set the version a catalog says it is, as another release would have written it. */
async function setVersion(db: string, version: string): Promise<void> {
  const instance = await DuckDBInstance.create(path.join(db, 'catalog.duckdb'));
  const connection = await instance.connect();
  await connection.run(`UPDATE store_meta SET value = '${version}' WHERE key = 'store_version'`);
  await connection.run('CHECKPOINT');
  connection.closeSync();
  instance.closeSync();
}

/** The parts of a report that say what the store holds (input says what this command read, which differs). */
const figuresOf = (r: LeakReport) => ({ totals: r.totals, groups: r.groups, findings: r.findings, distributions: r.distributions, timeline: r.timeline });

describe('a store of an earlier release (versions 12, 13, 14 and 15)', () => {
  // The report of a store that read the golden traces afresh, once for the four versions (each an analyze).
  let fresh: LeakReport;
  beforeAll(async () => {
    fresh = await analyze({ inputs: [golden], db: ':memory:', pricesFile: prices });
  });

  it.each(['12', '13', '14', '15'] as const)('of version %s is migrated on open and gives the report of a store that read the same traces afresh', async (version) => {
    const db = storeV12('store', version);
    const before = Object.keys(snapshot(db)).filter((f) => f.endsWith('.parquet'));
    const migrated = await analyze({ inputs: [], db, pricesFile: prices });
    expect(fresh.totals.runs).toBe(9);
    expect(figuresOf(migrated)).toEqual(figuresOf(fresh));
    expect(migrated.input.spans_in_store).toBe(41);

    // Now of this version, its spans in new Parquet files (the old ones deleted once the catalog was in place),
    // nothing of the migration left beside it.
    const store = await Store.open(db);
    try {
      expect((await store.typedRows('store-version'))[0]?.value).toBe(STORE_VERSION);
    } finally {
      store.close();
    }
    const after = Object.keys(snapshot(db));
    expect(after.filter((f) => f.endsWith('.parquet'))).toHaveLength(before.length);
    for (const f of before) expect(after).not.toContain(f);
    expect(after.filter((f) => f.includes('migrating'))).toEqual([]);

    // Read further like any store: the traces it holds count once.
    const again = await analyze({ inputs: [golden], db, pricesFile: prices });
    expect(figuresOf(again)).toEqual(figuresOf(fresh));
  });

  it('a migration that fails leaves the store as it was, and says so with its path', async () => {
    const db = storeV12();
    // A span file cut short: the migration cannot read the spans back, and stops.
    const parquet = Object.keys(snapshot(db)).find((f) => f.endsWith('.parquet'))!;
    fs.truncateSync(path.join(db, parquet), 100);
    const before = snapshot(db);
    await expect(Store.open(db)).rejects.toThrow(new RegExp(`^${db}: a store of version 12 could not be migrated to version ${STORE_VERSION} \\(.+\\); it is left as it was`));
    expect(snapshot(db)).toEqual(before);
  });

  it('a killed migration (its copy and new files left behind) is done again by the next open', async () => {
    const db = storeV12();
    // What a migration killed before its rename leaves: its copy of the catalog (its process gone) and
    // Parquet files no catalog names.
    const dead = 2 ** 22 + 1;
    fs.copyFileSync(path.join(db, 'catalog.duckdb'), path.join(db, `catalog.duckdb.migrating-${dead}`));
    const stray = path.join(db, 'spans', 'day=2026-09-21', 'service_folder=billing-graph', 'part-1796530220099-0123abcd-0.parquet');
    fs.copyFileSync(path.join(db, Object.keys(snapshot(db)).find((f) => f.includes('billing-graph'))!), stray);
    const migrated = await analyze({ inputs: [], db, pricesFile: prices });
    expect(figuresOf(migrated)).toEqual(figuresOf(fresh));
    expect(fs.existsSync(path.join(db, `catalog.duckdb.migrating-${dead}`))).toBe(false);
  });
});

describe("the migration's queries", () => {
  it('migrate-store drops every table a fact query fills (schema.sql makes them anew), and the spans table', () => {
    const dropped = [...query('migrate-store').sql.matchAll(/^DROP TABLE IF EXISTS (\w+);$/gm)].map((m) => m[1]);
    const filled = [...FACTS, ...SCOPE_FACTS].map((name) => /INSERT INTO (\w+) BY NAME/.exec(query(name).sql)?.[1]);
    expect(filled.every((t) => t !== undefined)).toBe(true);
    expect(new Set(dropped)).toEqual(new Set(['spans', ...filled]));
  });

  it("touch-all-traces marks every trace of the spans table, as note-touched marks an ingest's", async () => {
    const store = await Store.open(':memory:');
    try {
      await store.connection.run("INSERT INTO spans (trace_id, span_id, name, status_code, ingest_id) VALUES ('a', '1', 'x', 0, 1), ('a', '2', 'x', 0, 1), ('b', '3', 'x', 0, 2), (NULL, '4', 'x', 0, 2)");
      await store.script(query('touch-all-traces'));
      const reader = await store.connection.runAndReadAll('SELECT trace_id FROM touched_traces ORDER BY trace_id');
      expect(reader.getRowObjects().map((r) => r['trace_id'])).toEqual(['a', 'b']);
    } finally {
      store.close();
    }
  });
});

describe('a store this release cannot migrate', () => {
  for (const [version, said] of [
    [
      '11',
      /: a store of version 11, too old to migrate \(this afterstop reads version 16 and migrates versions 12, 13, 14 and 15\); give another --db and read the trace files into it again \(the store is left as it is\)$/,
    ],
    [
      '17',
      /: a store of version 17, written by a newer afterstop \(this one reads version 16 and migrates versions 12, 13, 14 and 15\); read it with that afterstop or a newer one, or give another --db \(the store is left as it is\)$/,
    ],
  ] as const) {
    it(`version ${version}: refused, naming the store and what to do; not a byte changed`, async () => {
      const db = storeV12();
      await setVersion(db, version);
      const before = snapshot(db);
      await expect(analyze({ inputs: [golden], db, pricesFile: prices })).rejects.toThrow(new RegExp(`^${db}${said.source}`));
      expect(snapshot(db)).toEqual(before);
    });
  }

  it('a catalog with tables and no version (an afterstop from before versions): refused, not changed', async () => {
    const db = path.join(dir, 'old');
    fs.mkdirSync(db);
    const instance = await DuckDBInstance.create(path.join(db, 'catalog.duckdb'));
    const connection = await instance.connect();
    await connection.run("CREATE TABLE spans (trace_id VARCHAR, span_id VARCHAR); INSERT INTO spans VALUES ('t', 's'); CHECKPOINT");
    connection.closeSync();
    instance.closeSync();
    const before = snapshot(db);
    await expect(Store.open(db)).rejects.toThrow(`${db}: a store from an earlier afterstop (no version), too old to migrate`);
    expect(snapshot(db)).toEqual(before);
  });
});
