import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyze } from '../index.js';
import { createHash } from 'node:crypto';
import { STORE_VERSION, Store } from '../store.js';
import { distModule } from '../../test/helpers/child.js';

/**
 * The store under two processes, and under a job killed mid-ingest: one waits
 * or fails clearly, nothing is corrupted, the next run completes the ingest
 * without counting anything twice.
 */
const storeModule = fileURLToPath(distModule('analyzer/store.js'));
const analyzerModule = fileURLToPath(distModule('analyzer/index.js'));
const golden = fileURLToPath(new URL('../../test/fixtures/golden/', import.meta.url));
const prices = `${golden}prices.json`;

let dir: string;
let children: ChildProcess[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-store-lock-'));
});
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children = [];
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Another process that opens the store, says so on stdout, holds it `ms`, closes it and writes `released`. */
function holder(db: string, ms: number): Promise<ChildProcess> {
  const released = path.join(dir, 'released');
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
    import * as fs from 'node:fs';
    const { Store } = await import(${JSON.stringify(storeModule)});
    const store = await Store.open(${JSON.stringify(db)});
    console.log('holding');
    await new Promise((r) => setTimeout(r, ${ms}));
    store.close();
    fs.writeFileSync(${JSON.stringify(released)}, '1');`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  return new Promise((resolve) => child.stdout!.once('data', () => resolve(child)));
}

async function withLockWait<T>(ms: number, body: () => Promise<T>): Promise<T> {
  const before = process.env['AFTERSTOP_LOCK_WAIT_MS'];
  process.env['AFTERSTOP_LOCK_WAIT_MS'] = String(ms);
  try {
    return await body();
  } finally {
    if (before === undefined) delete process.env['AFTERSTOP_LOCK_WAIT_MS'];
    else process.env['AFTERSTOP_LOCK_WAIT_MS'] = before;
  }
}

describe('the store and other processes', () => {
  it('waits while another process holds it, then opens it', async () => {
    const db = path.join(dir, 'store');
    await holder(db, 1500);
    const store = await withLockWait(20_000, () => Store.open(db));
    expect(fs.existsSync(path.join(dir, 'released'))).toBe(true);
    store.close();
  });

  it('fails clearly, naming the store and the holder, when the wait is over; the holder’s store is untouched', async () => {
    const db = path.join(dir, 'store');
    await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db, pricesFile: prices });
    const child = await holder(db, 60_000);
    await expect(withLockWait(300, () => Store.open(db))).rejects.toThrow(new RegExp(`${db}: the store is in use by another process \\(pid ${child.pid}\\)`));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const report = await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db, pricesFile: prices });
    expect(report.input.files_read).toBe(0);
    expect(report.totals).toMatchObject({ runs: 2, ghost_commits: 1 });
  });

  it('a first open killed while DuckDB wrote the new catalog leaves a store that opens: its half-written file is removed, a catalog of its own put in place', async () => {
    const db = path.join(dir, 'store');
    // What a kill at that moment leaves: the folders, and a catalog file of a process now gone, with no valid header.
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    fs.mkdirSync(path.join(db, 'tmp'), { recursive: true });
    fs.writeFileSync(path.join(db, `catalog.duckdb.creating-${gone.pid}`), '');
    fs.writeFileSync(path.join(db, `catalog.duckdb.creating-${gone.pid}.wal`), 'x');
    const report = await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db, pricesFile: prices });
    expect(report.totals).toMatchObject({ runs: 2, ghost_commits: 1 });
    expect(fs.readdirSync(db).sort()).toEqual(['catalog.duckdb', 'spans', 'tmp']);
  });

  it('several processes opening one new store at once share one catalog, and none is refused', async () => {
    const db = path.join(dir, 'store');
    const opened = await Promise.all(
      [0, 1, 2, 3].map(
        () =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', `const { Store } = await import(${JSON.stringify(storeModule)}); (await Store.open(${JSON.stringify(db)})).close();`], { stdio: 'ignore' });
            children.push(child);
            child.once('exit', resolve);
          }),
      ),
    );
    expect(opened).toEqual([0, 0, 0, 0]);
    expect(fs.readdirSync(db).sort()).toEqual(['catalog.duckdb', 'tmp']);
    const report = await analyze({ inputs: [`${golden}g2-ghost-email.jsonl`], db, pricesFile: prices });
    expect(report.totals).toMatchObject({ runs: 2, ghost_commits: 1 });
  });

  it('a job killed mid-ingest leaves the store usable; the next run completes the ingest and counts each span once', async () => {
    const db = path.join(dir, 'store');
    const traces = path.join(dir, 'traces');
    fs.mkdirSync(traces);
    // Enough lines that the ingest takes a while: the golden traces, many times over with other ids.
    const lines = fs
      .readdirSync(golden)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => fs.readFileSync(`${golden}${f}`, 'utf8').split('\n').filter(Boolean));
    for (let copy = 0; copy < 8; copy++) {
      const hex = copy.toString(16);
      fs.writeFileSync(path.join(traces, `copy-${copy}.jsonl`), `${lines.map((l) => l.replace(/"([0-9a-f])([0-9a-f]{15}|[0-9a-f]{31})"/g, `"${hex}$2"`).replaceAll('"conv-', `"conv-${copy}-`)).join('\n')}\n`);
    }
    const clean = await analyze({ inputs: [traces], db: ':memory:', pricesFile: prices });
    let killed = 0;
    // Killed at several moments (starting, reading, writing Parquet): whichever it hits, the result is the same.
    for (const killAfterMs of [100, 250, 400, 600]) {
      const child = spawn(
        process.execPath,
        ['--input-type=module', '-e', `const { analyze } = await import(${JSON.stringify(analyzerModule)}); await analyze({ inputs: [${JSON.stringify(traces)}], db: ${JSON.stringify(db)} });`],
        { stdio: 'ignore' },
      );
      children.push(child);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, killAfterMs));
      child.kill('SIGKILL');
      await exited;
      if (child.signalCode === 'SIGKILL') killed++;
    }
    expect(killed).toBeGreaterThan(0);
    const after = await analyze({ inputs: [traces], db, pricesFile: prices });
    expect(after.totals).toEqual(clean.totals);
    expect(after.input.skipped).toEqual([]);
    const again = await analyze({ inputs: [traces], db, pricesFile: prices });
    expect(again.input.files_read).toBe(0);
    expect(again.totals).toEqual(clean.totals);
  });
});

describe('the store version', () => {
  it('changes with schema.sql: a store of this version does not run its schema again, so a changed table needs a new version', () => {
    const schema = fs.readFileSync(fileURLToPath(new URL('../queries/schema.sql', import.meta.url)));
    const digest = createHash('sha256').update(schema).digest('hex');
    // Changed schema.sql? Bump STORE_VERSION in analyzer/store.ts, then put the new pair here.
    expect([STORE_VERSION, digest]).toEqual(['16', '8938af17ad7db8c5ba3a69730cc3b4d1c2a67fb8eca850eb21967e4ac55eefab']);
  });

  it('a store of this version opens without its schema and keeps every table; a new one gets them', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-version-'));
    try {
      const tables = async (): Promise<string[]> => {
        const store = await Store.open(folder);
        try {
          const reader = await store.connection.runAndReadAll('SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() ORDER BY table_name');
          return reader.getRows().map((r) => String(r[0]));
        } finally {
          store.close();
        }
      };
      const first = await tables();
      expect(first).toContain('store_meta');
      expect(first).toContain('run_facts');
      expect(await tables()).toEqual(first);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
