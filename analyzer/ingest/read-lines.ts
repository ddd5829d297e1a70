import * as fs from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Decompress } from 'fzstd';
import type { TraceFile } from './discover.js';

/**
 * Reading a trace file's bytes with bounds: a compressed file may inflate to
 * at most {@link maxInflatedBytes} (a decompression bomb stops there), and a
 * line longer than {@link maxLineBytes} is counted, not held.
 */

/**
 * The longest line read by default, in MB (10^6 bytes): a longer one is named (file, line,
 * size) and skipped without being held, and the rest of the file is read. A
 * line is held, parsed and stored whole: at 60 MB one peaked at 0.6 GB within
 * the default memory limit, one of 150 MB ran DuckDB out of it (and no report
 * came out).
 */
export const DEFAULT_MAX_LINE_MB = 64;
/** The most AFTERSTOP_MAX_LINE_MB may ask: V8's strings stop near 512 Mi characters, and a parsed line costs several times its text. */
const MAX_LINE_MB_CEILING = 256;

/** The longest line read, in bytes: AFTERSTOP_MAX_LINE_MB (1 to 256), else {@link DEFAULT_MAX_LINE_MB}. */
export function maxLineBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env['AFTERSTOP_MAX_LINE_MB']);
  const mb = Number.isFinite(value) && value >= 1 ? Math.min(value, MAX_LINE_MB_CEILING) : DEFAULT_MAX_LINE_MB;
  return Math.floor(mb * 1e6);
}
/** What any compressed file may inflate to, whatever its ratio: small files are never refused. */
const INFLATION_FLOOR_BYTES = 64 * 1024 * 1024;
/** Real OTLP/JSON deflates 10 to 40 times; a bomb, hundreds to millions. */
export const DEFAULT_MAX_INFLATION = 100;

/** The ratio of inflated to compressed size a file may have: AFTERSTOP_MAX_INFLATION, else {@link DEFAULT_MAX_INFLATION}. */
export function maxInflation(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env['AFTERSTOP_MAX_INFLATION']);
  return Number.isFinite(value) && value >= 1 ? value : DEFAULT_MAX_INFLATION;
}

/** How many bytes a compressed file may inflate to. */
export const maxInflatedBytes = (file: Pick<TraceFile, 'size'>, ratio = maxInflation()): number => Math.max(INFLATION_FLOOR_BYTES, file.size * ratio);

const sizeText = (bytes: number): string => (bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`);

/** Why a compressed file's reading stopped at its bound. */
export class InflationLimit extends Error {
  override readonly name = 'InflationLimit';
  constructor(file: TraceFile, limit: number) {
    super(
      `it inflates to more than ${sizeText(limit)} from ${sizeText(file.size)} (the bound: ${maxInflation()} times its size, at least ${sizeText(INFLATION_FLOOR_BYTES)}; a decompression bomb?); the rest is not read (AFTERSTOP_MAX_INFLATION sets the ratio)`,
    );
  }
}

/** Thrown from fzstd's callback to stop it inflating: fzstd inflates a whole input chunk at once (a 64 KiB chunk of a bomb is gigabytes). */
const STOP = Symbol('stop');

/** A zstd decoder that inflates at most `limit` bytes, then ends its output (what came before the bound is read). */
function zstdStream(limit: number, onCut: () => void): Transform {
  let transform: Transform;
  let seen = 0;
  let cut = false;
  const decoder = new Decompress((chunk) => {
    if (seen + chunk.length > limit) {
      transform.push(Buffer.from(chunk.subarray(0, limit - seen)));
      throw STOP;
    }
    seen += chunk.length;
    transform.push(Buffer.from(chunk));
  });
  const feed = (chunk: Uint8Array, final: boolean, done: (error?: Error | null) => void) => {
    if (cut) return done();
    try {
      decoder.push(chunk, final);
      done();
    } catch (error) {
      if (error !== STOP) return done(error as Error);
      cut = true;
      onCut();
      transform.push(null);
      done();
    }
  };
  transform = new Transform({
    transform: (chunk: Buffer, _encoding, done) => feed(chunk, false, done),
    flush: (done) => feed(new Uint8Array(0), true, done),
  });
  return transform;
}

/** Passes at most `limit` bytes on, then ends its output. */
function bounded(limit: number, onCut: () => void): Transform {
  let seen = 0;
  let cut = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (cut) return done();
      if (seen + chunk.length <= limit) {
        seen += chunk.length;
        return done(null, chunk);
      }
      cut = true;
      this.push(chunk.subarray(0, limit - seen));
      onCut();
      this.push(null);
      done();
    },
  });
}

/** A trace file's bytes, decompressed; `cut()` says why reading stopped early, if it did. */
export interface TraceFileStream {
  stream: Readable;
  cut: () => InflationLimit | undefined;
}

/** The file's bytes, decompressed and bounded when it is compressed (the output ends at the bound). */
export function openTraceFile(file: TraceFile, limit = maxInflatedBytes(file)): TraceFileStream {
  const raw = fs.createReadStream(file.path);
  if (file.compression === 'none') return { stream: raw, cut: () => undefined };
  let cut: InflationLimit | undefined;
  const inflate = file.compression === 'gzip' ? createGunzip() : undefined;
  // At the bound nothing more is read or inflated.
  const onCut = () => {
    cut = new InflationLimit(file, limit);
    raw.unpipe();
    raw.destroy();
    inflate?.destroy();
  };
  const out = inflate === undefined ? zstdStream(limit, onCut) : bounded(limit, onCut);
  // An error anywhere (a truncated or corrupt archive) reaches the reader; the file is closed.
  const fail = (error: Error) => {
    raw.destroy();
    out.destroy(error);
  };
  raw.on('error', fail);
  if (inflate !== undefined) {
    inflate.on('error', fail);
    raw.pipe(inflate).pipe(out);
  } else {
    raw.pipe(out);
  }
  out.on('close', () => raw.destroy());
  return { stream: out, cut: () => cut };
}

/**
 * Whether a compressed file inflates within its bound, found by inflating it
 * without keeping anything; files that do not are read carefully, up to the bound.
 */
export async function inflatesWithinBound(file: TraceFile): Promise<boolean> {
  if (file.compression === 'none') return true;
  const opened = openTraceFile(file);
  try {
    for await (const _chunk of opened.stream) {
      // only counted
    }
    return opened.cut() === undefined;
  } catch {
    // A truncated or corrupt archive: the careful path reads what it can and names the rest.
    return false;
  }
}

/** A line of a trace file: its text, or only its length in bytes (UTF-8) when it is longer than the limit. */
export type Line = { text: string } | { tooLong: number };

/** A string's length in UTF-8 bytes, counted only when its length in characters does not settle whether it is over `limit`. */
const overBytes = (text: string, limit: number): boolean => text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text, 'utf8') > limit);

/**
 * The lines of a stream, split on LF only (a CR before it is dropped): a lone
 * CR inside a line is not a line break, so the numbers given are those of
 * `wc -l` and of the exporter that wrote the file (readline would split there).
 * Each chunk is searched once, so a line of any length costs time in
 * proportion to it; a line of more than `maxBytes` (UTF-8) is counted as it
 * streams past, never held. A stream `cut` at its bound ends in part of a
 * line, which is not yielded.
 */
export async function* linesOf(input: Readable, maxBytes = maxLineBytes(), cut: () => unknown = () => undefined): AsyncGenerator<Line> {
  let pieces: string[] = [];
  /** The bytes of the pieces held; once the line is over the limit, of the pieces let go. */
  let held = 0;
  let over = false;
  const end = (last: string): Line => {
    if (over || (pieces.length === 0 ? overBytes(last, maxBytes) : held + Buffer.byteLength(last, 'utf8') > maxBytes)) {
      const length = held + Buffer.byteLength(last, 'utf8');
      pieces = [];
      held = 0;
      over = false;
      return { tooLong: length };
    }
    const text = pieces.length === 0 ? last : pieces.join('') + last;
    pieces = [];
    held = 0;
    return { text: text.endsWith('\r') ? text.slice(0, -1) : text };
  };
  const keep = (piece: string): void => {
    held += Buffer.byteLength(piece, 'utf8');
    if (over) return;
    if (held > maxBytes) {
      over = true;
      pieces = [];
      return;
    }
    pieces.push(piece);
  };
  for await (const chunk of input.setEncoding('utf8')) {
    const text = chunk as string;
    let start = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
      yield end(text.slice(start, i));
      start = i + 1;
    }
    if (start < text.length) keep(text.slice(start));
  }
  // A file cut at its bound ends in part of a line: not a line.
  if ((pieces.length > 0 || over) && cut() === undefined) {
    const last = end('');
    if (!('text' in last) || last.text !== '') yield last;
  }
}
