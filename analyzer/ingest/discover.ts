import * as fs from 'node:fs';
import * as path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { InputError } from '../errors.js';

/** How a trace file is compressed, told by its first bytes (rotated Collector files keep their name). */
export type Compression = 'none' | 'gzip' | 'zstd';

/** A trace file as its folder lists it: stat'ed, not opened (whether it was read before needs no more). */
export interface ListedFile {
  path: string;
  size: number;
  mtimeMs: number;
  /** OTLP/JSON, or a Parquet file: a Grafana Tempo block's data (ingest/tempo.ts). */
  format: 'otlp-json' | 'parquet';
  /** Why the file cannot be read (EACCES, ELOOP, EISDIR, ...), or the folder listed (its files unread): skipped, named, and looked at again next time. */
  unreadable?: string;
}

/** A trace file opened to be read: its compression told by its first bytes (unreadable if it cannot be opened). */
export interface TraceFile extends ListedFile {
  compression: Compression;
}

/** What a folder is searched for: OTLP/JSON lines or documents, possibly compressed, and Tempo blocks' data. */
const TRACE_FILE = /\.(jsonl|ndjson|json)(\.(gz|gzip|zst|zstd))?$/i;
const TEMPO_DATA = /(^|[\\/])data\.parquet$/;

export function compressionOf(file: string): Compression {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const n = fs.readSync(fd, head, 0, 4, 0);
    if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
    if (n === 4 && head.readUInt32LE(0) === 0xfd2fb528) return 'zstd';
    return 'none';
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The file as it is now, or undefined when it is gone since the folder was
 * listed: a writer rotated it (renamed it aside), and its lines are read
 * under the new name, in this listing or the next run's. Stat'ed only: a file
 * read before and unchanged is never opened ({@link opened} opens the rest).
 */
function describe(file: string): ListedFile | undefined {
  const format = file.toLowerCase().endsWith('.parquet') ? 'parquet' : 'otlp-json';
  try {
    const stat = fs.statSync(file);
    return { path: path.resolve(file), size: stat.size, mtimeMs: stat.mtimeMs, format };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return { path: path.resolve(file), size: 0, mtimeMs: 0, format, unreadable: `cannot be read (${code ?? (error as Error).message})` };
  }
}

/**
 * A listed file opened (its first bytes read: its compression; a Parquet file is not compressed as a
 * whole): one the job may not read (another user's, a symlink loop) is `unreadable`, with its reason, and
 * does not cost the report of the others.
 */
export function opened(file: ListedFile): TraceFile {
  if (file.unreadable !== undefined) return { ...file, compression: 'none' };
  try {
    if (file.format === 'parquet') {
      fs.closeSync(fs.openSync(file.path, 'r'));
      return { ...file, compression: 'none' };
    }
    return { ...file, compression: compressionOf(file.path) };
  } catch (error) {
    return { ...file, compression: 'none', unreadable: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

/** A folder under an input that the job cannot list (another user's, mode 000): named, its files not read. */
const unlistedFolder = (folder: string, code: string): ListedFile => ({
  path: path.resolve(folder),
  size: 0,
  mtimeMs: 0,
  format: 'otlp-json',
  unreadable: `a folder that cannot be listed (${code}): its trace files are not read`,
});

/** Whether a file found in a folder is a trace file: OTLP/JSON (possibly compressed) or a Tempo block's data, not its meta.json. */
function isTraceFile(f: string): boolean {
  // A Tempo block's meta.json is not a trace file: its data.parquet is.
  return TEMPO_DATA.test(f) || (TRACE_FILE.test(f) && !(path.basename(f).startsWith('meta') && fs.existsSync(path.join(path.dirname(f), 'data.parquet'))));
}

/**
 * The trace files under a folder, as the folder lists them (not sorted: a
 * folder of a million files is never held whole), each once; names starting
 * with a dot are left out, links followed (a folder reached twice walked once).
 */
async function* walk(root: string, skip: (dir: string) => boolean = () => false): AsyncGenerator<string | ListedFile> {
  const folders = [root];
  const seen = new Set<string>();
  for (let dir = folders.pop(); dir !== undefined; dir = folders.pop()) {
    let real: string;
    try {
      real = fs.realpathSync(dir);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    let handle: fs.Dir;
    try {
      handle = await fs.promises.opendir(dir, { bufferSize: 256 });
    } catch (error) {
      if (dir === root) throw error;
      // A folder gone (rotated away) below the one named is not there to read; one the job cannot list is named.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') yield unlistedFolder(dir, code ?? (error as Error).message);
      continue;
    }
    for await (const entry of handle) {
      if (entry.name.startsWith('.')) continue;
      const file = path.join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const stat = fs.statSync(file);
          isDir = stat.isDirectory();
          isFile = stat.isFile();
        } catch {
          continue;
        }
      }
      if (isDir) {
        if (!skip(file)) folders.push(file);
      } else if (isFile && isTraceFile(file)) yield file;
    }
  }
}

/** Whether `file` lies in the folder `dir` (absolute paths). */
const within = (file: string, dir: string): boolean => file.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

/** The files one input names, before any is read: checked at once, so a wrong input fails before anything is read. */
type Source = { folder: string } | { files: string[] };

async function sourceOf(input: string): Promise<Source> {
  if (fs.existsSync(input)) {
    const stat = fs.statSync(input);
    if (stat.isDirectory()) return { folder: path.resolve(input) };
    if (stat.isFile()) return { files: [path.resolve(input)] };
    // A FIFO, socket or device would block the job or never end: traces are read from files.
    throw new InputError(`${input}: not a regular file or folder (a pipe or device is not read as traces; write the traces to a file first)`, { path: input });
  }
  if (isDynamicPattern(input)) {
    const matches = await glob(input, { absolute: true, onlyFiles: true });
    if (matches.length === 0) throw new InputError(`no file matches ${input}`, { path: input });
    return { files: matches.map((f) => path.resolve(f)) };
  }
  throw new InputError(`${input}: no such file or folder`, { path: input });
}

/**
 * The trace files named by `inputs`, in batches of at most `size`, streamed:
 * files (any name), folders (searched recursively for .jsonl / .ndjson /
 * .json, optionally .gz or .zst, and for Tempo blocks' data.parquet, as each
 * folder lists them) and glob patterns. A path that does not exist, or a
 * pattern that matches nothing, is an {@link InputError} before the first
 * batch. Each file appears once (a file two inputs name, in the first's
 * batch); a file gone by the time it is looked at (rotated away) is left out.
 * What is held is a batch, the inputs, and the files named one by one or by
 * a pattern: never the whole of a folder's files.
 */
export async function traceFileBatches(inputs: readonly string[], size = 10_000): Promise<AsyncGenerator<ListedFile[]>> {
  const sources: Source[] = [];
  for (const input of inputs) sources.push(await sourceOf(input));
  return (async function* () {
    const named = new Set<string>();
    const folders: string[] = [];
    let batch: ListedFile[] = [];
    for (const source of sources) {
      const earlier = [...folders];
      const covered = (f: string): boolean => named.has(f) || earlier.some((dir) => within(f, dir));
      if ('folder' in source) {
        // A folder inside one already walked gave its files there.
        if (!earlier.some((dir) => source.folder === dir || within(source.folder, dir))) {
          // A folder already walked, inside this one, is not walked again.
          for await (const f of walk(source.folder, (dir) => earlier.includes(dir))) {
            if (typeof f === 'string' && named.has(f)) continue;
            const file = typeof f === 'string' ? describe(f) : f;
            if (file === undefined) continue;
            batch.push(file);
            if (batch.length >= size) {
              yield batch;
              batch = [];
            }
          }
        }
        folders.push(source.folder);
        continue;
      }
      for (const f of source.files) {
        if (covered(f)) continue;
        named.add(f);
        const file = describe(f);
        if (file === undefined) continue;
        batch.push(file);
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  })();
}

/**
 * The trace files named by `inputs` ({@link traceFileBatches}), all of them,
 * sorted by path: for a caller that wants the list (the ingest streams it).
 */
export async function discoverTraceFiles(inputs: readonly string[]): Promise<TraceFile[]> {
  const files: TraceFile[] = [];
  for await (const batch of await traceFileBatches(inputs)) files.push(...batch.map(opened));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
