import * as fs from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Decompress } from 'fzstd';
import type { SkippedLine } from './otlp-json.js';
import type { TraceFile } from './discover.js';

/**
 * The careful reader, for a file that the fast path (DuckDB's read_json)
 * refused or that held unusable spans: each line is parsed on its own, what
 * cannot be used is named with its file and line, and what can is rewritten
 * as clean OTLP/JSON lines for the fast path to read.
 */
export interface SanitizeResult {
  /** Clean ExportTraceServiceRequest lines. */
  lines: string[];
  skipped: SkippedLine[];
  spans: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
/** A time isNanos accepted, as a number of ns (a JSON number is whole ns, a fraction cut). */
const nanos = (v: unknown): bigint => (typeof v === 'string' ? BigInt(v) : BigInt(Math.trunc(v as number)));
const MAX_NANOS = 2n ** 63n - 1n;
/** A time in ns since the epoch that the store can hold: 0 to 2^63 - 1 (int64), as digits or a JSON number. */
const isNanos = (v: unknown): boolean =>
  (typeof v === 'string' && /^\d{1,19}$/.test(v) && BigInt(v) <= MAX_NANOS) || (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= Number(MAX_NANOS));

function zstdStream(): Transform {
  let transform: Transform;
  const decoder = new Decompress((chunk) => transform.push(Buffer.from(chunk)));
  transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        decoder.push(chunk);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done) {
      try {
        decoder.push(new Uint8Array(0), true);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
  return transform;
}

function open(file: TraceFile): Readable {
  const raw = fs.createReadStream(file.path);
  if (file.compression === 'gzip') return raw.pipe(createGunzip());
  if (file.compression === 'zstd') return raw.pipe(zstdStream());
  return raw;
}

/** A well-formed attribute list: entries with a string key and a value object of the right primitive types. */
function cleanAttributes(list: unknown): { kept: Json[]; dropped: number; repeated: string[] } {
  if (!Array.isArray(list)) return { kept: [], dropped: list === undefined || list === null ? 0 : 1, repeated: [] };
  const kept: Json[] = [];
  const seen = new Set<string>();
  const repeated: string[] = [];
  let dropped = 0;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv['key'] !== 'string' || !isObject(kv['value'])) {
      dropped++;
      continue;
    }
    if (seen.has(kv['key'])) {
      repeated.push(kv['key']);
      continue;
    }
    seen.add(kv['key']);
    const v = kv['value'];
    const value: Json = {};
    if (typeof v['stringValue'] === 'string') value['stringValue'] = v['stringValue'];
    else if (typeof v['boolValue'] === 'boolean') value['boolValue'] = v['boolValue'];
    else if (typeof v['intValue'] === 'string' || typeof v['intValue'] === 'number') value['intValue'] = String(v['intValue']);
    else if (typeof v['doubleValue'] === 'string' || typeof v['doubleValue'] === 'number') value['doubleValue'] = String(v['doubleValue']);
    else if (isObject(v['arrayValue'])) value['arrayValue'] = v['arrayValue'];
    else if (isObject(v['kvlistValue'])) value['kvlistValue'] = v['kvlistValue'];
    else if (typeof v['bytesValue'] === 'string') value['bytesValue'] = v['bytesValue'];
    else if (Object.keys(v).length > 0) {
      dropped++;
      continue;
    }
    kept.push({ key: kv['key'], value });
  }
  return { kept, dropped, repeated };
}

/** Keep the spans that can be used; say why the others cannot. */
function cleanRequest(request: unknown, at: (reason: string) => void): { clean: Json; spans: number } | undefined {
  if (!isObject(request) || !Array.isArray(request['resourceSpans'])) {
    at('not an ExportTraceServiceRequest (no resourceSpans array)');
    return undefined;
  }
  let spans = 0;
  const resourceSpans: Json[] = [];
  for (const rs of request['resourceSpans']) {
    if (!isObject(rs)) {
      at('a resourceSpans entry is not an object');
      continue;
    }
    const resource = isObject(rs['resource']) ? { attributes: cleanAttributes(rs['resource']['attributes']).kept } : { attributes: [] };
    const scopeSpans: Json[] = [];
    for (const ss of Array.isArray(rs['scopeSpans']) ? rs['scopeSpans'] : []) {
      if (!isObject(ss)) continue;
      const kept: Json[] = [];
      for (const s of Array.isArray(ss['spans']) ? ss['spans'] : []) {
        const id = isObject(s) && isId(s['spanId']) ? s['spanId'] : '?';
        if (!isObject(s)) {
          at('a span is not an object');
          continue;
        }
        const missing = ['traceId', 'spanId'].filter((k) => !isId(s[k]));
        const badTimes = ['startTimeUnixNano', 'endTimeUnixNano'].filter((k) => !isNanos(s[k]));
        if (missing.length > 0 || badTimes.length > 0) {
          at(`span ${id}: ${[...missing.map((k) => `no ${k}`), ...badTimes.map((k) => `${k} is not a time (ns since the epoch, 0 to 2^63 - 1)`)].join(', ')}`);
          continue;
        }
        // A clock that went backwards within one span: its duration would be negative, its times unusable.
        if (nanos(s['endTimeUnixNano']) < nanos(s['startTimeUnixNano'])) {
          at(`span ${id}: ends before it starts (endTimeUnixNano < startTimeUnixNano)`);
          continue;
        }
        const attributes = cleanAttributes(s['attributes']);
        if (attributes.dropped > 0) at(`span ${id}: ${attributes.dropped} malformed attribute(s) ignored, the span kept`);
        if (attributes.repeated.length > 0) at(`span ${id}: attribute(s) ${attributes.repeated.join(', ')} repeated; the first value kept`);
        const status = isObject(s['status']) ? s['status'] : {};
        kept.push({
          traceId: s['traceId'],
          spanId: s['spanId'],
          parentSpanId: typeof s['parentSpanId'] === 'string' ? s['parentSpanId'] : '',
          name: typeof s['name'] === 'string' ? s['name'] : '',
          kind: typeof s['kind'] === 'number' || typeof s['kind'] === 'string' ? String(s['kind']) : '0',
          startTimeUnixNano: String(s['startTimeUnixNano']),
          endTimeUnixNano: String(s['endTimeUnixNano']),
          attributes: attributes.kept,
          events: (Array.isArray(s['events']) ? s['events'] : []).filter(isObject).map((e) => ({
            timeUnixNano: isNanos(e['timeUnixNano']) ? String(e['timeUnixNano']) : null,
            name: typeof e['name'] === 'string' ? e['name'] : '',
            attributes: cleanAttributes(e['attributes']).kept,
          })),
          status: {
            code: typeof status['code'] === 'number' || typeof status['code'] === 'string' ? String(status['code']) : '0',
            message: typeof status['message'] === 'string' ? status['message'] : '',
          },
        });
        spans++;
      }
      scopeSpans.push({ scope: isObject(ss['scope']) && typeof ss['scope']['name'] === 'string' ? { name: ss['scope']['name'] } : {}, spans: kept });
    }
    resourceSpans.push({ resource, scopeSpans });
  }
  return { clean: { resourceSpans }, spans };
}

/**
 * The lines of a stream, split on LF only (a CR before it is dropped): a lone
 * CR inside a line is not a line break, so the numbers given are those of
 * `wc -l` and of the exporter that wrote the file (readline would split there).
 */
const LONE_SURROGATE = /[\ud800-\udfff]/;
const wellFormed = (_key: string, value: unknown): unknown =>
  typeof value === 'string' && LONE_SURROGATE.test(value) ? (value as string & { toWellFormed(): string }).toWellFormed() : value;

async function* linesOf(input: Readable): AsyncGenerator<string> {
  // The pieces of the line not ended yet: each chunk is searched once, so a line of any length costs
  // time in proportion to it (appending chunks to one string and searching it from its start was
  // quadratic: a 50 MB line took 15 s).
  let pieces: string[] = [];
  const line = (last: string): string => {
    const text = pieces.length === 0 ? last : pieces.join('') + last;
    pieces = [];
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of input) {
    const text = chunk as string;
    let start = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
      yield line(text.slice(start, i));
      start = i + 1;
    }
    if (start < text.length) pieces.push(text.slice(start));
  }
  if (pieces.length > 0) {
    const last = line('');
    if (last !== '') yield last;
  }
}

export async function sanitizeFile(file: TraceFile): Promise<SanitizeResult> {
  const result: SanitizeResult = { lines: [], skipped: [], spans: 0 };
  const raw: string[] = [];
  try {
    for await (const text of linesOf(open(file).setEncoding('utf8'))) raw.push(text);
  } catch (error) {
    result.skipped.push({ file: file.path, line: raw.length + 1, reason: `cannot be read further: ${(error as Error).message}` });
  }
  const parsed: { line: number; value: unknown }[] = [];
  const failures: SkippedLine[] = [];
  raw.forEach((text, i) => {
    if (text.trim() === '') return;
    try {
      parsed.push({ line: i + 1, value: JSON.parse(text) });
    } catch (error) {
      const last = i === raw.length - 1;
      failures.push({ file: file.path, line: i + 1, reason: `${last ? 'truncated or not JSON' : 'not JSON'}: ${(error as Error).message}` });
    }
  });
  // One document over several lines (as an OTLP/HTTP exporter posts it): parse it whole.
  if (parsed.length === 0 && failures.length > 1) {
    try {
      parsed.push({ line: 1, value: JSON.parse(raw.join('\n')) });
      failures.length = 0;
    } catch {
      // not a document either: the line failures stand
    }
  }
  result.skipped.push(...failures);
  for (const { line, value } of parsed) {
    // A value nested deeper than the stack takes (an attribute of kvlists in kvlists, thousands deep)
    // makes the line unusable, not the file: named, and the rest read.
    let text: string;
    let spans: number;
    try {
      const clean = cleanRequest(value, (reason) => result.skipped.push({ file: file.path, line, reason }));
      if (clean === undefined) continue;
      spans = clean.spans;
      // A lone UTF-16 surrogate (half an emoji, cut by a writer) is valid JSON but no text DuckDB takes:
      // made U+FFFD, so the span is kept with the rest of its line.
      text = JSON.stringify(clean.clean, wellFormed);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      result.skipped.push({ file: file.path, line, reason: `nested too deep to be read (${error.message})` });
      continue;
    }
    result.spans += spans;
    result.lines.push(text);
  }
  result.skipped.sort((a, b) => a.line - b.line);
  return result;
}
