import * as fs from 'node:fs';
import * as path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { InputError } from '../errors.js';

/** How a trace file is compressed, told by its first bytes (rotated Collector files keep their name). */
export type Compression = 'none' | 'gzip' | 'zstd';

export interface TraceFile {
  path: string;
  size: number;
  mtimeMs: number;
  compression: Compression;
  /** OTLP/JSON, or a Parquet file: a Grafana Tempo block's data (ingest/tempo.ts). */
  format: 'otlp-json' | 'parquet';
  /** Why the file cannot be read (EACCES, ELOOP, EISDIR, ...): it is skipped, named, and looked at again next time. */
  unreadable?: string;
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
 * under the new name, in this listing or the next run's.
 */
function describe(file: string): TraceFile | undefined {
  const parquet = file.toLowerCase().endsWith('.parquet');
  const format = parquet ? 'parquet' : 'otlp-json';
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(file);
    // Opened here (compressionOf reads its first bytes): a file the job may not read is known before any is read.
    const compression = parquet ? readable(file) : compressionOf(file);
    return { path: path.resolve(file), size: stat.size, mtimeMs: stat.mtimeMs, compression, format };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // One file the job cannot read (another user's, a symlink loop) does not cost the report of the others.
    const why = code ?? (error as Error).message;
    return { path: path.resolve(file), size: stat?.size ?? 0, mtimeMs: stat?.mtimeMs ?? 0, compression: 'none', format, unreadable: `cannot be read (${why})` };
  }
}

/** Throws when the file cannot be opened for reading; a Parquet file is not compressed as a whole. */
function readable(file: string): Compression {
  fs.closeSync(fs.openSync(file, 'r'));
  return 'none';
}

/**
 * The folder's trace files; a folder under it the job cannot list (another user's, mode 000) is put in
 * `unlisted` with its reason: the glob library passes over it in silence, and its files would be lost unsaid.
 */
async function walk(dir: string, unlisted: Map<string, string>): Promise<string[]> {
  // fs.readdir as the glob library calls it (path, options, callback), noting a folder it cannot list.
  const readdir = ((folder: fs.PathLike, options: unknown, done: (error: NodeJS.ErrnoException | null, entries: unknown) => void) =>
    fs.readdir(folder, options as { withFileTypes: true }, (error, entries) => {
      if (error !== null && error.code !== 'ENOENT') unlisted.set(path.resolve(String(folder)), error.code ?? error.message);
      done(error, entries);
    })) as unknown as typeof fs.readdir;
  const found = await glob('**/*', { cwd: dir, absolute: true, onlyFiles: true, dot: false, fs: { readdir } });
  // A Tempo block's meta.json is not a trace file: its data.parquet is.
  return found.filter((f) => TEMPO_DATA.test(f) || (TRACE_FILE.test(f) && !(path.basename(f).startsWith('meta') && fs.existsSync(path.join(path.dirname(f), 'data.parquet')))));
}

/**
 * The trace files named by `inputs`: files (any name), folders (searched
 * recursively for .jsonl / .ndjson / .json, optionally .gz or .zst, and for
 * Tempo blocks' data.parquet) and glob patterns. A path that does not exist, or a pattern that matches nothing,
 * is an {@link InputError}. Each file appears once, sorted by path; a file gone
 * by the time it is looked at (rotated away) is left out.
 */
export async function discoverTraceFiles(inputs: readonly string[]): Promise<TraceFile[]> {
  const files = new Set<string>();
  const unlisted = new Map<string, string>();
  for (const input of inputs) {
    if (fs.existsSync(input)) {
      const stat = fs.statSync(input);
      if (stat.isDirectory()) for (const f of await walk(input, unlisted)) files.add(path.resolve(f));
      else if (stat.isFile()) files.add(path.resolve(input));
      // A FIFO, socket or device would block the job or never end: traces are read from files.
      else throw new InputError(`${input}: not a regular file or folder (a pipe or device is not read as traces; write the traces to a file first)`, { path: input });
      continue;
    }
    if (isDynamicPattern(input)) {
      const matches = await glob(input, { absolute: true, onlyFiles: true });
      if (matches.length === 0) throw new InputError(`no file matches ${input}`, { path: input });
      for (const f of matches) files.add(path.resolve(f));
      continue;
    }
    throw new InputError(`${input}: no such file or folder`, { path: input });
  }
  const folders: TraceFile[] = [...unlisted].map(([folder, code]) => ({
    path: folder, size: 0, mtimeMs: 0, compression: 'none', format: 'otlp-json', unreadable: `a folder that cannot be listed (${code}): its trace files are not read`,
  }));
  return [...[...files].sort().flatMap((f) => describe(f) ?? []), ...folders];
}
