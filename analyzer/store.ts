import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DuckDBInstance, JSDuckDBValueConverter, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { InputError, StorageError, firstLine, isStorageFailure } from './errors.js';
import { sessionVariable } from './sql/dialect.js';
import type { QueryRows } from './sql/query-rows.js';
import { appendTypedRows } from './sql/typed-rows.js';
import { query, type Query } from './queries.js';
import { CATALOG, CREATING, createWaitingForLock, onlyFirstOpenLeftovers, removeCatalogFile, removeDeadCreations } from './store-folder.js';
import { memoryLimitSetting } from './store-memory.js';
import { MIGRATES_FROM, migrateStore } from './store-migration.js';
import { declaredType, listTypes } from './store-params.js';

export type Params = Record<string, DuckDBValue>;

/** The layout of the store's tables; a store of a version in {@link MIGRATES_FROM} is migrated to it (store-migration.ts), one of another version refused. */
export const STORE_VERSION = '16';

/**
 * The store: a folder that accumulates spans across runs, or `:memory:` (a
 * temporary folder, removed on close). Its spans live in Parquet files
 * partitioned by day and service (`spans/day=…/service_folder=…/`, a service's folder its name, or a readable cut of a long one with its hash, span-files.ts);
 * `catalog.duckdb` records which files are live, the facts of every run, the
 * trace files read and the lines skipped. Open it with {@link Store.open}, and
 * always close it ({@link withStore} does both).
 */
export class Store {
  private closed = false;

  private constructor(
    private readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
    /** As given: the folder, or `:memory:`. */
    readonly path: string,
    /** The store's folder (for `:memory:`, a temporary one). */
    readonly folder: string,
    private readonly temporary: boolean,
  ) {}

  /** Where the Parquet files of the spans are. */
  get spansDir(): string {
    return path.join(this.folder, 'spans');
  }

  /**
   * `memoryLimit`: DuckDB's memory_limit (default AFTERSTOP_MEMORY_LIMIT or
   * store-memory.ts's defaultMemoryLimit); beyond it DuckDB spills to the store's `tmp`
   * folder, so a report over millions of spans stays within a small machine.
   */
  static async open(where: string, memoryLimit = memoryLimitSetting()): Promise<Store> {
    const temporary = where === ':memory:';
    if (!temporary && fs.existsSync(where) && !fs.statSync(where).isDirectory()) {
      throw new InputError(
        `${where}: a store of an earlier afterstop (one DuckDB file; stores are now folders of Parquet files), too old to migrate: give another --db and read the trace files into it again (this file is left as it is)`,
        { path: where },
      );
    }
    const folder = temporary ? fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-store-')) : path.resolve(where);
    try {
      return await Store.openIn(where, folder, temporary, memoryLimit);
    } catch (error) {
      if (temporary) fs.rmSync(folder, { recursive: true, force: true });
      if (InputError.isInstance(error)) throw error;
      if (isStorageFailure(error)) throw storageError(where, error);
      // A catalog that is corrupt, truncated or a folder: the store is the user's input, so this is bad
      // input, named, not a crash.
      throw new InputError(`${where}: cannot open the store (${firstLine(error)})`, { path: where, cause: error });
    }
  }

  private static async openIn(where: string, folder: string, temporary: boolean, memoryLimit: string): Promise<Store> {
    const catalog = path.join(folder, CATALOG);
    // A folder that holds files but no catalog is someone else's: afterstop neither writes into it nor cleans it.
    // (What a first open killed before its catalog was in place leaves, an empty tmp folder and a catalog being
    // created, is afterstop's.)
    if (!temporary && fs.existsSync(folder) && !fs.existsSync(catalog) && !onlyFirstOpenLeftovers(folder)) {
      throw new InputError(`${where}: not an afterstop store (it holds files and no ${CATALOG}); give an empty or new folder to --db`, { path: where });
    }
    fs.mkdirSync(path.join(folder, 'tmp'), { recursive: true });
    if (!temporary) removeDeadCreations(folder);
    const options = { memory_limit: memoryLimit, temp_directory: path.join(folder, 'tmp') };
    if (!temporary && !fs.existsSync(catalog)) await Store.createCatalog(where, folder, options);
    return Store.connectTo(where, folder, temporary, temporary ? ':memory:' : catalog, options);
  }

  private static async connectTo(where: string, folder: string, temporary: boolean, file: string, options: Record<string, string>): Promise<Store> {
    let instance: DuckDBInstance | undefined;
    let connection: DuckDBConnection | undefined;
    let migrated = false;
    try {
      instance = await createWaitingForLock(file, options, where);
      connection = await instance.connect();
      const store = new Store(instance, connection, where, folder, temporary);
      // A store of this version has every table of the schema: it is not run again (7 ms of each open, a tenth of a
      // small report's time).
      const version = await store.storedVersion();
      if (version !== undefined && MIGRATES_FROM.includes(version) && !temporary) {
        // Migrated in a copy while this one holds the store; then this one is closed and the migrated one opened.
        await migrateStore(store, file, STORE_VERSION, (copy) => Store.openCopy(where, folder, copy, options)).catch((error: unknown) => {
          if (isStorageFailure(error)) throw storageError(where, error);
          throw new InputError(
            `${where}: a store of version ${version} could not be migrated to version ${STORE_VERSION} (${firstLine(error)}); it is left as it was: the same command tries again, or give another --db`,
            { path: where, cause: error },
          );
        });
        migrated = true;
      } else if (version !== STORE_VERSION) {
        if (version !== undefined) throw store.otherVersion(version);
        await store.refuseUnversioned();
        await store.script(query('schema'));
        await store.checkVersion();
      }
      if (!migrated) {
        await store.script(query('macros'));
        return store;
      }
    } catch (error) {
      connection?.closeSync();
      instance?.closeSync();
      throw error;
    }
    connection?.closeSync();
    instance?.closeSync();
    return Store.connectTo(where, folder, temporary, file, options);
  }

  /** A copy of a catalog being migrated (store-migration.ts), opened as it is: no schema run, no version checked. */
  private static async openCopy(where: string, folder: string, file: string, options: Record<string, string>): Promise<Store> {
    const instance = await DuckDBInstance.create(file, options);
    try {
      return new Store(instance, await instance.connect(), where, folder, false);
    } catch (error) {
      instance.closeSync();
      throw error;
    }
  }

  /**
   * A new store's catalog is written under a name of this process's own
   * (`catalog.duckdb.creating-<pid>`), closed, then linked into place, which
   * fails rather than replaces when another process got there first: a job
   * killed while DuckDB writes a new file's header leaves no catalog that
   * cannot be opened, only its own leftover, removed by the next open.
   */
  private static async createCatalog(where: string, folder: string, options: Record<string, string>): Promise<void> {
    const creating = path.join(folder, `${CATALOG}${CREATING}${process.pid}`);
    removeCatalogFile(creating);
    const store = await Store.connectTo(where, folder, false, creating, options);
    try {
      await store.connection.run('CHECKPOINT');
    } finally {
      store.close();
    }
    try {
      fs.linkSync(creating, path.join(folder, CATALOG));
    } catch (error) {
      // Another process put its catalog in place while this one wrote its own: that one is the store's.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      removeCatalogFile(creating);
    }
  }

  /** Run a query that returns nothing (one statement), with its parameters bound. */
  async run(q: Query, params: Params = {}): Promise<void> {
    if (q.bindsVariables) return this.runWithVariables(q, params);
    await this.connection.run(q.sql, this.bind(q, params), listTypes(q));
  }

  /** A view's query (`@session_view`): each parameter set, bound, as the session variable the view reads; then the view. */
  private async runWithVariables(q: Query, params: Params): Promise<void> {
    const bound = this.bind(q, params) ?? {};
    for (const p of q.params) {
      const type = declaredType(p.type);
      if (type === undefined) throw new Error(`${q.file}: parameter ${p.name}: no DuckDB type for ${p.type}`);
      // Typed as declared: a NULL (an open end of the window) binds with its type, as the view compares it.
      await this.connection.run(`SET VARIABLE ${sessionVariable(q.name, p.name)} = $value`, { value: bound[p.name] as DuckDBValue }, { value: type });
    }
    await this.connection.run(q.sql);
  }

  /** Run a query and return its rows as plain JS objects (DuckDB's JS conversion: BIGINT as bigint, lists as arrays). */
  async rows<T = Record<string, unknown>>(q: Query, params: Params = {}): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(q.sql, this.bind(q, params), listTypes(q));
    return reader.getRowObjectsJS() as T[];
  }

  /**
   * A query's rows as {@link rows} gives them, a chunk of the result at a time (at most 2,048 rows), and its
   * columns (known before any row: an empty result still has them). What is held is a chunk's, so a query over a
   * long run's timeline (hundreds of thousands of rows) can be printed as it is read.
   */
  async streamRows(q: Query, params: Params = {}): Promise<{ columns: string[]; chunks: AsyncIterable<Record<string, unknown>[]> }> {
    const result = await this.stream(q, params);
    return { columns: result.deduplicatedColumnNames(), chunks: result.yieldRowObjectJs() };
  }

  /** A query's result, its parameters bound, read a chunk at a time. */
  private stream(q: Query, params: Params) {
    return this.connection.stream(q.sql, this.bind(q, params), listTypes(q));
  }

  /** A query's rows as its header declares them (queries/<name>.sql's -- @column lines; analyzer/sql/query-rows.ts). */
  async typedRows<N extends keyof QueryRows>(name: N, params: Params = {}): Promise<QueryRows[N][]> {
    const q = query(name);
    // Streamed and typed a chunk at a time: the engine's rows as read are garbage once typed, so a query of
    // hundreds of thousands of rows (a long run's timeline) holds one copy of them, not three.
    const result = await this.stream(q, params);
    const names = result.columnNames();
    const out: QueryRows[N][] = [];
    for await (const chunk of result) appendTypedRows(q, names, chunk.convertColumns(JSDuckDBValueConverter), chunk.rowCount, out);
    return out;
  }

  /**
   * Run `body` with DuckDB free to keep rows in any order, so that it writes with every thread: for
   * statements whose rows nothing reads in order (the working spans, the Parquet files).
   */
  /** The threads DuckDB runs a statement on. */
  async threads(): Promise<number> {
    const reader = await this.connection.runAndReadAll("SELECT CAST(current_setting('threads') AS BIGINT) AS n");
    return Number(reader.getRowObjects()[0]?.['n'] ?? 1);
  }

  /** DuckDB's memory limit as it reports it (`488.2 MiB`). */
  async memoryLimit(): Promise<string> {
    const reader = await this.connection.runAndReadAll("SELECT current_setting('memory_limit') AS m");
    return String(reader.getRowObjects()[0]?.['m'] ?? '');
  }

  /** Run `body` with DuckDB on `threads` threads, then on as many as before. */
  async withThreads<T>(threads: number, body: () => Promise<T>): Promise<T> {
    const before = await this.threads();
    if (threads === before) return body();
    await this.connection.run(`SET threads = ${Math.max(1, Math.floor(threads))}`);
    try {
      return await body();
    } finally {
      await this.connection.run(`SET threads = ${before}`);
    }
  }

  async inAnyOrder<T>(body: () => Promise<T>): Promise<T> {
    await this.connection.run('SET preserve_insertion_order = false');
    try {
      return await body();
    } finally {
      await this.connection.run('RESET preserve_insertion_order');
    }
  }

  /** Run `body` in one transaction: committed when it resolves, rolled back when it throws (and the error passed on). */
  async transaction<T>(body: () => Promise<T>): Promise<T> {
    await this.connection.run('BEGIN TRANSACTION');
    try {
      const result = await body();
      await this.connection.run('COMMIT');
      return result;
    } catch (error) {
      await this.connection.run('ROLLBACK');
      throw error;
    }
  }

  /** Run a file of several statements (schema, macros), in one call: DuckDB runs them in order, and stops at the first that fails. */
  async script(q: Query): Promise<void> {
    await this.connection.run(q.sql);
  }

  /**
   * The version the store says it is (undefined when it has no version table yet: a new store, or one of an
   * afterstop from before versions). A store of this version has all of schema.sql's tables: a change to them
   * is a new STORE_VERSION.
   */
  private async storedVersion(): Promise<string | undefined> {
    if (!(await this.hasTable('store_meta'))) return undefined;
    const [row] = await this.typedRows('store-version');
    return row?.value;
  }

  private async hasTable(name: string): Promise<boolean> {
    const reader = await this.connection.runAndReadAll("SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $name", { name });
    return Number(reader.getRowObjects()[0]?.['n'] ?? 0) > 0;
  }

  /**
   * A store of another version than this release reads or migrates: refused, and not changed (schema.sql is
   * not run on it). A store written by a newer afterstop is that afterstop's to read.
   */
  private otherVersion(version: string): InputError {
    const n = Number(version);
    const unchanged = 'the store is left as it is';
    if (Number.isInteger(n) && n > Number(STORE_VERSION)) {
      return new InputError(
        `${this.path}: a store of version ${version}, written by a newer afterstop (this one reads version ${STORE_VERSION} and migrates versions ${listed(MIGRATES_FROM)}); read it with that afterstop or a newer one, or give another --db (${unchanged})`,
        { path: this.path },
      );
    }
    return new InputError(
      `${this.path}: a store of version ${version}, too old to migrate (this afterstop reads version ${STORE_VERSION} and migrates versions ${listed(MIGRATES_FROM)}); give another --db and read the trace files into it again (${unchanged})`,
      { path: this.path },
    );
  }

  /** A catalog with tables but no version table is an afterstop's from before versions: refused before schema.sql changes it. */
  private async refuseUnversioned(): Promise<void> {
    const reader = await this.connection.runAndReadAll('SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = current_database()');
    if (Number(reader.getRowObjects()[0]?.['n'] ?? 0) > 0 && !(await this.hasTable('store_meta'))) {
      throw new InputError(`${this.path}: a store from an earlier afterstop (no version), too old to migrate: give another --db and read the trace files into it again (the store is left as it is)`, { path: this.path });
    }
  }

  /** A new store (its tables just created) is marked with this version. */
  private async checkVersion(): Promise<void> {
    const [row] = await this.typedRows('store-version');
    if (row === undefined) await this.run(query('set-store-version'), { version: STORE_VERSION });
  }

  /**
   * Track the progress of long queries (DuckDB's own bar is never printed);
   * {@link progress} then reads it.
   */
  async trackProgress(): Promise<void> {
    await this.connection.run('SET enable_progress_bar = true');
    await this.connection.run('SET enable_progress_bar_print = false');
  }

  /** How far the running query is, 0 to 100; undefined when DuckDB cannot tell. */
  progress(): number | undefined {
    if (this.closed) return undefined;
    const pct = this.connection.progress.percentage;
    return pct >= 0 ? pct : undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connection.closeSync();
    this.instance.closeSync();
    if (this.temporary) fs.rmSync(this.folder, { recursive: true, force: true });
  }

  /** Only the parameters the query declares, each of them given (a missing one is a bug). */
  private bind(q: Query, params: Params): Params | undefined {
    if (q.params.length === 0) return undefined;
    const bound: Params = {};
    for (const p of q.params) {
      if (!(p.name in params)) throw new Error(`${q.file}: parameter ${p.name} not given`);
      bound[p.name] = params[p.name] as DuckDBValue;
    }
    return bound;
  }
}

/** The store (or DuckDB's spill in it, or a temporary file) could not be written. */
export const storageError = (where: string, error: unknown): StorageError =>
  new StorageError(`${where}: could not write to the store or a temporary file (${firstLine(error)}); nothing was marked read: the same command reads it all once the store can be written`, { path: where, cause: error });

/** Open the store, hand it to `body`, and close it whatever happens. */
export async function withStore<T>(path: string, body: (store: Store) => Promise<T>): Promise<T> {
  const store = await Store.open(path);
  try {
    return await body(store);
  } catch (error) {
    // A write the machine refused (full disk, quota, read-only) while reading or reporting: said as such.
    if (StorageError.isInstance(error) || !isStorageFailure(error)) throw error;
    throw storageError(path, error);
  } finally {
    store.close();
  }
}

/** Versions as a sentence lists them: `12, 13 and 14`. */
const listed = (versions: readonly string[]): string => (versions.length < 2 ? versions.join('') : `${versions.slice(0, -1).join(', ')} and ${versions.at(-1)}`);
