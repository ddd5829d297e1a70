import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listValue } from '@duckdb/node-api';
import { InputError, isOutOfMemory, isStorageFailure } from '../errors.js';
import { query } from '../queries.js';
import { deriveTouchedFacts } from '../facts.js';
import type { Store } from '../store.js';
import { opened, traceFileBatches, type Compression, type ListedFile, type TraceFile } from './discover.js';
import type { SkippedLine } from './otlp-json.js';
import { sanitizeFile, type SanitizeResult } from './sanitize.js';
import { inflatesWithinBound } from './read-lines.js';
import { storeTempoBlock, tempoBlockOf } from './tempo.js';
import { loadTouchedSpanFiles, sweepUnrecordedSpanFiles, writeSpanFiles } from '../span-files.js';

export interface IngestSummary {
  /** Trace files named by the inputs (their paths are the store session's input_files: ingest-lists.sql). */
  files: number;
  /** Of those, read now: new, or grown since the last time. */
  read: number;
  /** Spans read from them (duplicates included), and how many of those were new to the store. */
  spansRead: number;
  spansAdded: number;
  /** Spans the store holds after the ingest, each once (what a report can draw on). */
  spansInStore: number;
  /** Lines (or spans) that could not be used, with file and line: the first {@link MAX_SKIPPED_HELD}. */
  skipped: SkippedLine[];
  /** All of them. */
  skippedCount: number;
}

/** At most this many skipped lines are held (and printed); the store records them all. */
export const MAX_SKIPPED_HELD = 1_000;

/**
 * Files are listed, checked against the store and read this many at a time
 * (one DuckDB read of each compression per batch): what is held per file is a
 * batch's, whatever the number of files named (a million one-span files).
 */
export const FILE_BATCH = 5_000;

const DUCKDB_COMPRESSION: Record<Compression, string> = { none: 'uncompressed', gzip: 'gzip', zstd: 'zstd' };

async function spanCount(store: Store): Promise<number> {
  const [row] = await store.rows<{ n: bigint }>(query('span-count'));
  return Number(row?.n ?? 0n);
}

/** Of a batch of files, those the store has not read yet, or that changed (grew) since. */
async function unseen(store: Store, files: ListedFile[]): Promise<ListedFile[]> {
  const rows = await store.typedRows('seen-files', { paths: listValue(files.map((f) => f.path)) });
  const seen = new Map(rows.map((r) => [r.path, r]));
  return files.filter((f) => {
    const before = seen.get(f.path);
    return before === undefined || Number(before.size) !== f.size || before.mtime_ms !== f.mtimeMs;
  });
}

/** The longest line the fast path reads. DuckDB sizes its buffers by this limit: a large one slows every read. */
export const FAST_PATH_MAX_LINE = 16 * 1024 * 1024;

type FileCounts = Map<string, { spans: number; invalid: number }>;

/**
 * Store files with DuckDB's reader, in one statement (all or nothing); the
 * spans read per file of this ingest, or undefined when DuckDB refused them.
 */
async function storeFiles(store: Store, ingestId: number, files: string[], compression: Compression, source: string | null, maxLineBytes = FAST_PATH_MAX_LINE): Promise<FileCounts | undefined> {
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
  const counts = await store.typedRows('file-counts', { ingest_id: ingestId, files: listValue(source === null ? files : [source]) });
  return new Map(counts.map((c) => [c.file, { spans: Number(c.spans), invalid: Number(c.invalid) }]));
}

/**
 * Run DuckDB's read of `files`; when it runs out of memory (it needs about
 * 192 MB per thread, store-memory.ts), again on half the threads. Out of memory on
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
        `DuckDB ran out of memory reading ${files.join(', ')} within its memory limit (${limit}) on one thread; ` + 'raise AFTERSTOP_MEMORY_LIMIT (reading OTLP/JSON needs about 300 MB); nothing was marked read',
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

const notStored = (file: TraceFile, skipped: SkippedLine[], why: string) => ({ spans: 0, skipped: [...skipped, { file: file.path, line: 0, reason: `${why}; it will be read again next time` }], again: true as const });

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

/** What a batch of files read gave, kept in the store's session (pending_files, pending_skipped) until the ingest records it. */
async function hold(store: Store, files: FileRead[]): Promise<void> {
  if (files.length === 0) return;
  const skipped = files.flatMap((f) => f.skipped.map((s) => ({ file: f.file.path, line: s.line, reason: s.reason })));
  if (skipped.length > 0) await holdSkipped(store, skipped);
  await store.run(query('add-pending-files'), {
    paths: listValue(files.map((f) => f.file.path)),
    sizes: listValue(files.map((f) => BigInt(f.file.size))),
    mtimes: listValue(files.map((f) => f.file.mtimeMs)),
    spans: listValue(files.map((f) => BigInt(f.spans))),
    again: listValue(files.map((f) => f.again === true)),
  });
}

async function holdSkipped(store: Store, skipped: SkippedLine[]): Promise<void> {
  await store.run(query('add-pending-skipped'), {
    files: listValue(skipped.map((s) => s.file)),
    lines: listValue(skipped.map((s) => BigInt(s.line))),
    reasons: listValue(skipped.map((s) => s.reason)),
  });
}

/** The ingest's figures as it goes; skipped lines past {@link MAX_SKIPPED_HELD} only counted. */
function noteSkipped(summary: IngestSummary, lines: readonly SkippedLine[]): void {
  summary.skippedCount += lines.length;
  for (const line of lines) {
    if (summary.skipped.length >= MAX_SKIPPED_HELD) break;
    summary.skipped.push(line);
  }
}

/**
 * Read the trace files named by `inputs` into the store. Files read before
 * and unchanged are not read again; spans already stored count once.
 * The files are listed and read in batches of {@link FILE_BATCH}: what is
 * held per file is a batch's (the rest is in the store's session tables).
 * Fast path: DuckDB reads a batch's new files of one compression in one go. A file
 * it refuses, or that holds unusable spans, goes through the careful path,
 * which names every line it cannot use.
 */
export async function ingest(store: Store, inputs: readonly string[], progress?: (message: string) => void): Promise<IngestSummary> {
  // The inputs are checked (each exists, each pattern matches) before anything is read.
  const batches = await traceFileBatches(inputs, FILE_BATCH);
  await store.script(query('ingest-lists'));
  const summary: IngestSummary = { files: 0, read: 0, spansRead: 0, spansAdded: 0, spansInStore: 0, skipped: [], skippedCount: 0 };
  let started: { ingestId: number; before: number } | undefined;
  for await (const files of batches) {
    summary.files += files.length;
    await store.run(query('add-input-files'), { paths: listValue(files.map((f) => f.path)) });
    // The files new or changed since they were read, opened; one the job cannot stat, list or open is named
    // with its reason, not marked read (it is looked at again next time).
    const looked = [
      ...files.filter((f) => f.unreadable !== undefined),
      ...(await unseen(
        store,
        files.filter((f) => f.unreadable === undefined),
      )),
    ].map(opened);
    const unread: FileRead[] = looked.flatMap((file) => {
      if (file.unreadable === undefined) return [];
      const skipped = { file: file.path, line: 0, reason: `${file.unreadable}; skipped, and read again next time` };
      noteSkipped(summary, [skipped]);
      return [{ file, spans: 0, skipped: [skipped], again: true as const }];
    });
    await hold(store, unread);
    const todo = looked.filter((f) => f.unreadable === undefined);
    if (todo.length === 0) continue;
    if (started === undefined) {
      // What a killed ingest left: spans not written (their files are read again) and files not made live.
      await store.run(query('clear-working-spans'));
      await sweepUnrecordedSpanFiles(store);
      const before = await spanCount(store);
      const [next] = await store.typedRows('next-ingest-id');
      started = { ingestId: next?.id ?? 1, before };
    }
    summary.read += todo.length;
    if (summary.files > files.length) progress?.(`${summary.files.toLocaleString('en-US')} file(s) listed, ${summary.read.toLocaleString('en-US')} to read`);
    await readBatch(store, started.ingestId, todo, summary, progress);
  }
  if (started === undefined) {
    // Nothing read: what could not be read is still recorded (its skipped lines, for the report).
    await store.transaction(() => store.script(query('record-pending')));
    summary.spansInStore = await spanCount(store);
    return summary;
  }
  const { ingestId, before } = started;
  await store.run(query('drop-invalid'), { ingest_id: ingestId });
  // Spans on days the retention removed stay removed (a grown file is read again from its start).
  const pruned = (await store.typedRows('pruned-span-counts', { ingest_id: ingestId })).map((p) => ({
    file: p.file,
    line: 0,
    reason: `${p.spans} span(s) before ${p.kept_from}, a day the store's retention removed (afterstop prune)`,
  }));
  noteSkipped(summary, pruned);
  if (pruned.length > 0) await holdSkipped(store, pruned);
  await store.run(query('drop-pruned'), { ingest_id: ingestId });
  // Each span once; then the leak-model facts of the traces that changed (an unchanged store keeps its own),
  // over the stored days the new spans fall on, read back; then those days written anew.
  progress?.('updating the facts of the traces that changed');
  await store.run(query('note-touched'), { ingest_id: ingestId });
  await loadTouchedSpanFiles(store, ingestId);
  await store.run(query('dedupe-spans'), { ingest_id: ingestId });
  // The facts of the runs of the traces just touched (their spans are all in the working table), kept for reports.
  await deriveTouchedFacts(store);
  progress?.('writing the spans to Parquet');
  await writeSpanFiles(store);
  // Files are recorded as read only once their spans and facts are stored: a job killed
  // before that reads them again next time (dedupe-spans.sql keeps each span once).
  await store.transaction(() => store.script(query('record-pending')));
  summary.spansInStore = await spanCount(store);
  summary.spansAdded = summary.spansInStore - before;
  return summary;
}

/**
 * Store a group of files with DuckDB's reader, in one statement; one bad file fails the statement (nothing
 * stored), and the group is halved until the files DuckDB refuses are found alone: a few statements per bad
 * file (about 2 log2 of the group), not one per file. The counts per file; undefined for a file refused.
 */
async function storeGroup(store: Store, ingestId: number, group: TraceFile[], compression: Compression): Promise<Map<string, { spans: number; invalid: number } | undefined>> {
  const perFile = new Map<string, { spans: number; invalid: number } | undefined>();
  const counts = await storeFiles(
    store,
    ingestId,
    group.map((f) => f.path),
    compression,
    null,
  );
  if (counts !== undefined) {
    for (const f of group) perFile.set(f.path, counts.get(f.path) ?? { spans: 0, invalid: 0 });
    return perFile;
  }
  if (group.length === 1) {
    perFile.set(group[0]!.path, undefined);
    return perFile;
  }
  const half = Math.ceil(group.length / 2);
  for (const part of [group.slice(0, half), group.slice(half)]) {
    for (const [file, c] of await storeGroup(store, ingestId, part, compression)) perFile.set(file, c);
  }
  return perFile;
}

/** Read a batch of new or changed files into the spans table; what each gave held until the ingest records it. */
async function readBatch(store: Store, ingestId: number, todo: TraceFile[], summary: IngestSummary, progress?: (message: string) => void): Promise<void> {
  const read: FileRead[] = [];
  const gave = (r: FileRead) => {
    summary.spansRead += r.spans;
    noteSkipped(summary, r.skipped);
    read.push(r);
  };
  const readCarefully = async (f: TraceFile) => {
    const careful = await storeCarefully(store, ingestId, f);
    gave({ file: f, spans: careful.spans, skipped: careful.skipped, ...(careful.again ? { again: true as const } : {}) });
  };

  for (const f of todo.filter((t) => t.format === 'parquet' && t.size > 0)) {
    progress?.(`reading ${f.path}`);
    const block = tempoBlockOf(f.path);
    if ('notRead' in block) {
      // A block whose meta.json is not written yet (Tempo writes it last) is looked at again next time.
      gave({ file: f, spans: 0, skipped: [{ file: f.path, line: 0, reason: block.notRead }], ...(block.retry ? { again: true as const } : {}) });
      continue;
    }
    const stored = await storeTempoBlock(store, ingestId, f.path, block);
    if ('skipped' in stored) {
      gave({ file: f, spans: 0, skipped: [stored.skipped] });
      continue;
    }
    // A span without ids or times cannot be used: drop-invalid.sql removes it, and it is said here.
    const skipped = stored.invalid > 0 ? [{ file: f.path, line: 0, reason: `${stored.invalid} span(s) without a trace id, span id or times (ns since the epoch, 0 to 2^63 - 1)` }] : [];
    gave({ file: f, spans: stored.spans, skipped });
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
    const perFile = await storeGroup(store, ingestId, group, compression);
    for (const f of group) {
      const c = perFile.get(f.path);
      // A file that gave no span at all may not be OTLP (another JSON file in the folder): the careful path says.
      if (c !== undefined && c.invalid === 0 && c.spans > 0) {
        gave({ file: f, spans: c.spans, skipped: [] });
        continue;
      }
      // Unusable spans in it, or none: read it again, carefully, to name each line it cannot use.
      if (c !== undefined) await store.run(query('forget-file-spans'), { ingest_id: ingestId, file: f.path });
      await readCarefully(f);
    }
  }
  for (const file of todo.filter((f) => f.size === 0)) read.push({ file, spans: 0, skipped: [] });
  await hold(store, read);
}
