import type { SkippedLine } from './otlp-json.js';
import type { TraceFile } from './discover.js';
import { linesOf, maxLineBytes, openTraceFile } from './read-lines.js';

/**
 * The careful reader, for a file that the fast path (DuckDB's read_json)
 * refused or that held unusable spans: each line is parsed on its own, what
 * cannot be used is named with its file and line, and what can is rewritten
 * as clean OTLP/JSON lines for the fast path to read.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
/** A time isNanos accepted, as a number of ns (a JSON number is whole ns, a fraction cut). */
const nanos = (v: unknown): bigint => (typeof v === 'string' ? BigInt(v) : BigInt(Math.trunc(v as number)));
const MAX_NANOS = 2n ** 63n - 1n;
/** A time in ns since the epoch that the store can hold: 0 to 2^63 - 1 (int64), as digits or a JSON number. */
const isNanos = (v: unknown): boolean => (typeof v === 'string' && /^\d{1,19}$/.test(v) && BigInt(v) <= MAX_NANOS) || (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= Number(MAX_NANOS));

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

const LONE_SURROGATE = /[\ud800-\udfff]/;
/** A lone UTF-16 surrogate (half an emoji, cut by a writer) is valid JSON but no text DuckDB takes: made U+FFFD. */
const wellFormed = (_key: string, value: unknown): unknown => (typeof value === 'string' && LONE_SURROGATE.test(value) ? (value as string & { toWellFormed(): string }).toWellFormed() : value);

/** The spans of one clean line, at most: a long line is written as several (DuckDB's reader buffers twice the longest line per thread). */
const LINE_CHARS = 4 * 1024 * 1024;
/** A multi-line document (as an OTLP/HTTP exporter posts it) is parsed whole up to this size. */
const DOCUMENT_CHARS = 64 * 1024 * 1024;

/**
 * A clean request as lines of at most about {@link LINE_CHARS} each, a span
 * per JSON.stringify: a span nested deeper than the stack takes is named and
 * left out, the rest of its line kept.
 */
function* cleanLines(clean: Json, lost: (reason: string) => void): Generator<{ text: string; spans: number }> {
  for (const rs of clean['resourceSpans'] as Json[]) {
    let resource: string;
    try {
      resource = JSON.stringify(rs['resource'], wellFormed);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      const spans = (rs['scopeSpans'] as Json[]).reduce((n, ss) => n + (ss['spans'] as Json[]).length, 0);
      lost(`nested too deep to be read (the resource of ${spans} span(s): ${error.message}); those spans not read`);
      continue;
    }
    for (const ss of rs['scopeSpans'] as Json[]) {
      const head = `{"resourceSpans":[{"resource":${resource},"scopeSpans":[{"scope":${JSON.stringify(ss['scope'], wellFormed)},"spans":[`;
      let texts: string[] = [];
      let chars = 0;
      const line = () => {
        const out = { text: `${head}${texts.join(',')}]}]}]}`, spans: texts.length };
        texts = [];
        chars = 0;
        return out;
      };
      for (const span of ss['spans'] as Json[]) {
        let text: string;
        try {
          text = JSON.stringify(span, wellFormed);
        } catch (error) {
          if (!(error instanceof RangeError)) throw error;
          lost(`nested too deep to be read (span ${String(span['spanId'])}: ${error.message}); the rest of the line kept`);
          continue;
        }
        if (texts.length > 0 && chars + text.length > LINE_CHARS) yield line();
        texts.push(text);
        chars += text.length;
      }
      if (texts.length > 0) yield line();
    }
  }
}

/** Bytes in MB (10^6), one decimal. */
const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

export interface SanitizeResult {
  skipped: SkippedLine[];
  /** Spans written, in how many clean lines, the longest of them in characters. */
  spans: number;
  lines: number;
  longest: number;
}

/**
 * Read a file line by line, hold one line at a time, and write its usable
 * spans as clean OTLP/JSON lines through `write`; name every line (or span)
 * that cannot be used. A compressed file stops at its inflation bound, with
 * the lines before it kept.
 */
export async function sanitizeFile(file: TraceFile, write: (line: string) => void): Promise<SanitizeResult> {
  const result: SanitizeResult = { skipped: [], spans: 0, lines: 0, longest: 0 };
  const skip = (line: number, reason: string) => result.skipped.push({ file: file.path, line, reason });
  // Lines kept while none has parsed, for a document spread over several lines; failures held for it.
  let held: string[] | undefined = [];
  let heldChars = 0;
  let parsedAny = false;
  let failures: SkippedLine[] = [];
  let lastFailure: { line: number; message: string } | undefined;
  const settleLastFailure = (last: boolean) => {
    if (lastFailure === undefined) return;
    failures.push({ file: file.path, line: lastFailure.line, reason: `${last ? 'truncated or not JSON' : 'not JSON'}: ${lastFailure.message}` });
    lastFailure = undefined;
  };
  const use = (line: number, value: unknown) => {
    const clean = cleanRequest(value, (reason) => skip(line, reason));
    if (clean === undefined) return;
    for (const out of cleanLines(clean.clean, (reason) => skip(line, reason))) {
      write(out.text);
      result.spans += out.spans;
      result.lines++;
      result.longest = Math.max(result.longest, out.text.length);
    }
  };
  let n = 0;
  const opened = openTraceFile(file);
  const maxBytes = maxLineBytes();
  try {
    for await (const item of linesOf(opened.stream, maxBytes, opened.cut)) {
      n++;
      settleLastFailure(false);
      if (!('text' in item)) {
        skip(n, `line too long: ${mb(item.tooLong)} MB (the limit: ${mb(maxBytes)} MB, AFTERSTOP_MAX_LINE_MB); not read, the rest of the file read`);
        held = undefined;
        continue;
      }
      const text = item.text;
      if (held !== undefined && !parsedAny) {
        heldChars += text.length;
        if (heldChars <= DOCUMENT_CHARS) held.push(text);
        else held = undefined;
      }
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        lastFailure = { line: n, message: (error as Error).message };
        continue;
      }
      parsedAny = true;
      held = undefined;
      use(n, value);
    }
    const cut = opened.cut();
    settleLastFailure(cut === undefined);
    if (cut !== undefined) skip(n + 1, `cannot be read further: ${cut.message}`);
  } catch (error) {
    settleLastFailure(false);
    skip(n + 1, `cannot be read further: ${(error as Error).message}`);
  }
  // One document over several lines (as an OTLP/HTTP exporter posts it): parse it whole.
  if (!parsedAny && failures.length > 1 && held !== undefined) {
    try {
      const value: unknown = JSON.parse(held.join('\n'));
      failures = [];
      use(1, value);
    } catch {
      // not a document either: the line failures stand
    }
  }
  result.skipped.push(...failures);
  result.skipped.sort((a, b) => a.line - b.line);
  return result;
}
