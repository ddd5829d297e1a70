import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listValue } from '@duckdb/node-api';
import { InputError, isOutOfMemory, isStorageFailure } from '../errors.js';
import { query } from '../queries.js';
import { FACTS, SCOPE_FACTS } from '../facts.js';
import type { Store } from '../store.js';
import { discoverTraceFiles, type Compression, type TraceFile } from './discover.js';
import type { SkippedLine } from './otlp-json.js';
import { sanitizeFile, type SanitizeResult } from './sanitize.js';
import { inflatesWithinBound } from './read-lines.js';
import { storeTempoBlock, tempoBlockOf } from './tempo.js';
import { loadTouchedSpanFiles, sweepUnrecordedSpanFiles, writeSpanFiles } from '../span-files.js';

export interface IngestSummary {
  /** Trace files named by the inputs. */
  files: number;
  /** Their absolute paths. */
  paths: string[];
  /** Of those, read now: new, or grown since the last time. */
  read: number;
  /** Spans read from them (duplicates included), and how many of those were new to the store. */
  spansRead: number;
  spansAdded: number;
  /** Spans the store holds after the ingest, each once (what a report can draw on). */
  spansInStore: number;
  /** Lines (or spans) that could not be used, with file and line. */
  skipped: SkippedLine[];
}

const DUCKDB_COMPRESSION: Record<Compression, string> = { none: 'uncompressed', gzip: 'gzip', zstd: 'zstd' };

async function spanCount(store: Store): Promise<number> {
  const [row] = await store.rows<{ n: bigint }>(query('span-count'));
  return Number(row?.n ?? 0n);
}

/** Files the store has not read yet, or that changed (grew) since. */
async function unseen(store: Store, files: TraceFile[]): Promise<TraceFile[]> {
  const rows = await store.typedRows('ingested-files');
  const seen = new Map(rows.map((r) => [r.path, r]));
  return files.filter((f) => {
    const before = seen.get(f.path);
    return before === undefined || Number(before.size) !== f.size || before.mtime_ms !== f.mtimeMs;
  });
}

/** The longest line the fast path reads. DuckDB sizes its buffers by this limit: a large one slows every read. */
const FAST_PATH_MAX_LINE = 16 * 1024 * 1024;

type FileCounts = Map<string, { spans: number; invalid: number }>;

/**
 * Store files with DuckDB's reader, in one statement (all or nothing); the
 * spans read per file of this ingest, or undefined when DuckDB refused them.
 */
async function storeFiles(
  store: Store,
  ingestId: number,
  files: string[],
  compression: Compression,
  source: string | null,
  maxLineBytes = FAST_PATH_MAX_LINE,
): Promise<FileCounts | undefined> {
  const read = () =>
    // Rows in any order (dedupe-spans.sql does not rely on order).
    store.inAnyOrder(() =>
      store.run(query('store-files'), {
        files: listValue(files),
        compression: DUCKDB_COMPRESSION[compression],
        source,
        max_object_bytes: BigInt(maxLineBytes),
        ingest_id: ingestId,
      }),
    );
  try {
    await readWithinMemory(store, files, read);
  } catch (error) {
    // A full disk or a memory limit too small is not the files' fault: the ingest stops (nothing marked read)
    // rather than reading them carefully.
    if (isStorageFailure(error) || InputError.isInstance(error)) throw error;
    return undefined;
  }
  const counts = await store.typedRows('file-counts', { ingest_id: ingestId });
  return new Map(counts.map((c) => [c.file, { spans: Number(c.spans), invalid: Number(c.invalid) }]));
}

/**
 * Run DuckDB's read of `files`; when it runs out of memory (it needs about
 * 190 MB per thread, store.ts), again on half the threads. Out of memory on
 * one thread is the memory limit's fault, not the files': an InputError that
 * names the setting. (The statement is one transaction: a read that failed
 * stored nothing.)
 */
async function readWithinMemory(store: Store, files: string[], read: () => Promise<void>): Promise<void> {
  let threads = await store.threads();
  for (;;) {
    try {
      await store.withThreads(threads, read);
      return;
    } catch (error) {
      if (!isOutOfMemory(error)) throw error;
      if (threads > 1) {
        threads = Math.ceil(threads / 2);
        continue;
      }
      const limit = await store.memoryLimit();
      throw new InputError(
        `DuckDB ran out of memory reading ${files.join(', ')} within its memory limit (${limit}) on one thread; ` +
          'raise AFTERSTOP_MEMORY_LIMIT (reading OTLP/JSON needs about 300 MB); nothing was marked read',
        { path: files[0], cause: error },
      );
    }
  }
}

/**
 * The careful path for one file: every line checked in Node, the clean ones
 * stored through a temporary file, the rest named in `skipped`.
 */
async function storeCarefully(store: Store, ingestId: number, file: TraceFile): Promise<{ spans: number; skipped: SkippedLine[]; again?: true }> {
  let tmp: string | undefined;
  let fd: number | undefined;
  let clean: SanitizeResult | undefined;
  try {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-ingest-'));
    const tmpFile = path.join(tmp, 'clean.jsonl');
    const out = (fd = fs.openSync(tmpFile, 'w'));
    // One line at a time is held: the clean lines go to a temporary file as they are made.
    clean = await sanitizeFile(file, (line) => fs.writeSync(out, `${line}\n`));
    fs.closeSync(out);
    fd = undefined;
    if (clean.lines > 0) {
      // Lines that passed every check failing now is the machine's trouble, not the file's: its spans are not
      // stored, so it is not counted as read, and the next ingest reads it again (a full disk stops the ingest).
      const stored = await storeFiles(store, ingestId, [tmpFile], 'none', file.path, Math.max(FAST_PATH_MAX_LINE, clean.longest * 3 + 1024));
      if (stored === undefined) return notStored(file, clean.skipped, 'DuckDB could not store its checked lines');
    }
  } catch (error) {
    if (isStorageFailure(error) || InputError.isInstance(error)) throw error;
    return notStored(file, clean?.skipped ?? [], `its checked lines could not be stored (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  }
  return { spans: clean.spans, skipped: clean.skipped };
}

const notStored = (file: TraceFile, skipped: SkippedLine[], why: string) =>
  ({ spans: 0, skipped: [...skipped, { file: file.path, line: 0, reason: `${why}; it will be read again next time` }], again: true as const });

/** The items for which `test` holds, at most `concurrency` tested at once (zlib inflates on libuv's threads). */
async function filterConcurrently<T>(items: T[], test: (item: T) => Promise<boolean>, concurrency = 4): Promise<T[]> {
  const results = new Array<boolean>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await test(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return items.filter((_item, i) => results[i]);
}

/** A file read, what it gave; `again`: only its skipped lines are kept (it is looked at again next time). */
interface FileRead {
  file: TraceFile;
  spans: number;
  skipped: SkippedLine[];
  again?: true;
}

/** Record what the files gave, in one transaction of three statements whatever their number. */
async function record(store: Store, files: FileRead[]): Promise<void> {
  if (files.length === 0) return;
  const marked = files.filter((f) => f.again !== true);
  const skipped = files.flatMap((f) => f.skipped.map((s) => ({ file: f.file.path, line: s.line, reason: s.reason })));
  await store.transaction(async () => {
    await store.run(query('forget-skipped'), { files: listValue(files.map((f) => f.file.path)) });
    if (skipped.length > 0) {
      await store.run(query('record-skipped'), {
        files: listValue(skipped.map((s) => s.file)),
        lines: listValue(skipped.map((s) => BigInt(s.line))),
        reasons: listValue(skipped.map((s) => s.reason)),
      });
    }
    if (marked.length > 0) {
      await store.run(query('record-files'), {
        paths: listValue(marked.map((f) => f.file.path)),
        sizes: listValue(marked.map((f) => BigInt(f.file.size))),
        mtimes: listValue(marked.map((f) => f.file.mtimeMs)),
        spans: listValue(marked.map((f) => BigInt(f.spans))),
        skipped: listValue(marked.map((f) => BigInt(f.skipped.length))),
      });
    }
  });
}

/**
 * Read the trace files named by `inputs` into the store. Files read before
 * and unchanged are not read again; spans already stored count once.
 * Fast path: DuckDB reads all new files of one compression in one go. A file
 * it refuses, or that holds unusable spans, goes through the careful path,
 * which names every line it cannot use.
 */
export async function ingest(store: Store, inputs: readonly string[], progress?: (message: string) => void): Promise<IngestSummary> {
  const files = await discoverTraceFiles(inputs);
  // A file the job cannot read is named with its reason, not marked read (it is looked at again next time).
  const unreadable = files.filter((f) => f.unreadable !== undefined);
  const todo = await unseen(store, files.filter((f) => f.unreadable === undefined));
  const summary: IngestSummary = { files: files.length, paths: files.map((f) => f.path), read: todo.length, spansRead: 0, spansAdded: 0, spansInStore: 0, skipped: [] };
  const unread: FileRead[] = unreadable.map((file) => {
    const skipped = { file: file.path, line: 0, reason: `${file.unreadable ?? 'cannot be read'}; skipped, and read again next time` };
    summary.skipped.push(skipped);
    return { file, spans: 0, skipped: [skipped], again: true as const };
  });
  if (todo.length === 0) {
    await record(store, unread);
    summary.spansInStore = await spanCount(store);
    return summary;
  }
  // What a killed ingest left: spans not written (their files are read again) and files not made live.
  await store.run(query('clear-working-spans'));
  await sweepUnrecordedSpanFiles(store);
  const before = await spanCount(store);
  const [next] = await store.typedRows('next-ingest-id');
  const ingestId = next?.id ?? 1;
  // Files are recorded as read only once their spans and facts are stored: a job killed
  // before that reads them again next time (dedupe-spans.sql keeps each span once).
  const read: FileRead[] = [];
  const readCarefully = async (f: TraceFile) => {
    const careful = await storeCarefully(store, ingestId, f);
    summary.spansRead += careful.spans;
    summary.skipped.push(...careful.skipped);
    read.push({ file: f, spans: careful.spans, skipped: careful.skipped, ...(careful.again ? { again: true as const } : {}) });
  };

  for (const f of todo.filter((t) => t.format === 'parquet' && t.size > 0)) {
    progress?.(`reading ${f.path}`);
    const block = tempoBlockOf(f.path);
    if ('notRead' in block) {
      const skipped = { file: f.path, line: 0, reason: block.notRead };
      summary.skipped.push(skipped);
      // A block whose meta.json is not written yet (Tempo writes it last) is looked at again next time.
      read.push({ file: f, spans: 0, skipped: [skipped], ...(block.retry ? { again: true as const } : {}) });
      continue;
    }
    const stored = await storeTempoBlock(store, ingestId, f.path, block);
    if ('skipped' in stored) {
      summary.skipped.push(stored.skipped);
      read.push({ file: f, spans: 0, skipped: [stored.skipped] });
      continue;
    }
    // A span without ids or times cannot be used: drop-invalid.sql removes it, and it is said here.
    const skipped = stored.invalid > 0 ? [{ file: f.path, line: 0, reason: `${stored.invalid} span(s) without a trace id, span id or times (ns since the epoch, 0 to 2^63 - 1)` }] : [];
    summary.spansRead += stored.spans;
    summary.skipped.push(...skipped);
    read.push({ file: f, spans: stored.spans, skipped });
  }

  for (const compression of ['none', 'gzip', 'zstd'] as const) {
    const all = todo.filter((f) => f.format === 'otlp-json' && f.compression === compression && f.size > 0);
    if (all.length === 0) continue;
    progress?.(`reading ${all.length} ${compression === 'none' ? '' : `${compression} `}file(s)`);
    // A compressed file that inflates past its bound (a decompression bomb) or is damaged goes to the careful
    // path, which keeps the lines before that point and names it; DuckDB would read a bomb to its end.
    const group = compression === 'none' ? all : await filterConcurrently(all, inflatesWithinBound);
    const fast = new Set(group);
    for (const f of all.filter((x) => !fast.has(x))) await readCarefully(f);
    if (group.length === 0) continue;
    let counts = await storeFiles(store, ingestId, group.map((f) => f.path), compression, null);
    // One bad file fails the whole batch: then read them one by one.
    const perFile = new Map<string, { spans: number; invalid: number } | undefined>();
    if (counts !== undefined) {
      for (const f of group) perFile.set(f.path, counts.get(f.path) ?? { spans: 0, invalid: 0 });
    } else {
      for (const f of group) {
        counts = await storeFiles(store, ingestId, [f.path], compression, null);
        perFile.set(f.path, counts === undefined ? undefined : (counts.get(f.path) ?? { spans: 0, invalid: 0 }));
      }
    }
    for (const f of group) {
      const c = perFile.get(f.path);
      // A file that gave no span at all may not be OTLP (another JSON file in the folder): the careful path says.
      if (c !== undefined && c.invalid === 0 && c.spans > 0) {
        summary.spansRead += c.spans;
        read.push({ file: f, spans: c.spans, skipped: [] });
        continue;
      }
      // Unusable spans in it, or none: read it again, carefully, to name each line it cannot use.
      if (c !== undefined) await store.run(query('forget-file-spans'), { ingest_id: ingestId, file: f.path });
      await readCarefully(f);
    }
  }
  await store.run(query('drop-invalid'), { ingest_id: ingestId });
  // Spans on days the retention removed stay removed (a grown file is read again from its start).
  for (const p of await store.typedRows('pruned-span-counts', { ingest_id: ingestId })) {
    const line = { file: p.file, line: 0, reason: `${p.spans} span(s) before ${p.kept_from}, a day the store's retention removed (afterstop prune)` };
    summary.skipped.push(line);
    read.find((r) => r.file.path === p.file)?.skipped.push(line);
  }
  await store.run(query('drop-pruned'), { ingest_id: ingestId });
  // Each span once; then the leak-model facts of the traces that changed (an unchanged store keeps its own),
  // over the stored days the new spans fall on, read back; then those days written anew.
  progress?.('updating the facts of the traces that changed');
  await store.run(query('note-touched'), { ingest_id: ingestId });
  await loadTouchedSpanFiles(store, ingestId);
  await store.run(query('dedupe-spans'), { ingest_id: ingestId });
  await store.script(query('forget-facts'));
  await store.run(query('assign-runs'));
  // The facts of the runs of the traces just touched (their spans are all in the working table), kept for reports.
  for (const name of FACTS) await store.run(query(name));
  await store.script(query('note-touched-scopes'));
  for (const name of SCOPE_FACTS) await store.run(query(name));
  progress?.('writing the spans to Parquet');
  await writeSpanFiles(store);
  await record(store, [...read, ...unread, ...todo.filter((f) => f.size === 0).map((file) => ({ file, spans: 0, skipped: [] }))]);
  summary.spansInStore = await spanCount(store);
  summary.spansAdded = summary.spansInStore - before;
  return summary;
}
