import * as fs from 'node:fs';
import * as readline from 'node:readline';

/** An attribute value as OTLP/JSON carries it, decoded. */
export type AttributeValue = string | number | boolean | bigint | null | AttributeValue[] | { [key: string]: AttributeValue };

/** One span, flattened out of an `ExportTraceServiceRequest`. Times are nanoseconds since the epoch. */
export interface FlatSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  statusCode: number;
  statusMessage: string;
  attributes: Record<string, AttributeValue>;
  resource: Record<string, AttributeValue>;
  scope: string;
  /** Where it came from: file and 1-based line. */
  file: string;
  line: number;
}

/** A line that could not be read, and why. Nothing is dropped silently. */
export interface SkippedLine {
  file: string;
  line: number;
  reason: string;
}

export interface ReadResult {
  spans: FlatSpan[];
  skipped: SkippedLine[];
  lines: number;
}

interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number | string;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: string;
}

/** Decode an OTLP/JSON AnyValue. `intValue` arrives as a string or a number; both are read. */
export function decodeAnyValue(value: OtlpAnyValue | undefined): AttributeValue {
  if (value === undefined || value === null) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) {
    const big = BigInt(value.intValue);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  if (value.doubleValue !== undefined) return Number(value.doubleValue);
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decodeAnyValue);
  if (value.kvlistValue !== undefined) return decodeAttributes(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return value.bytesValue;
  return null;
}

export function decodeAttributes(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list ?? []) out[kv.key] = decodeAnyValue(kv.value);
  return out;
}

function nanos(value: unknown, what: string): bigint {
  if (typeof value === 'string' || typeof value === 'number') return BigInt(value);
  throw new Error(`${what} is missing`);
}

/** Flatten one `ExportTraceServiceRequest` (already parsed). Throws on a shape that is not one. */
export function flattenRequest(request: unknown, file: string, line: number): FlatSpan[] {
  if (typeof request !== 'object' || request === null || !Array.isArray((request as { resourceSpans?: unknown }).resourceSpans)) {
    throw new Error('not an ExportTraceServiceRequest (no resourceSpans array)');
  }
  const spans: FlatSpan[] = [];
  for (const rs of (request as { resourceSpans: any[] }).resourceSpans) {
    const resource = decodeAttributes(rs?.resource?.attributes);
    for (const ss of rs?.scopeSpans ?? []) {
      const scope = typeof ss?.scope?.name === 'string' ? ss.scope.name : '';
      for (const s of ss?.spans ?? []) {
        spans.push({
          traceId: String(s.traceId ?? ''),
          spanId: String(s.spanId ?? ''),
          parentSpanId: String(s.parentSpanId ?? ''),
          name: String(s.name ?? ''),
          kind: Number(s.kind ?? 0),
          startNs: nanos(s.startTimeUnixNano, 'startTimeUnixNano'),
          endNs: nanos(s.endTimeUnixNano, 'endTimeUnixNano'),
          statusCode: Number(s.status?.code ?? 0),
          statusMessage: String(s.status?.message ?? ''),
          attributes: decodeAttributes(s.attributes),
          resource,
          scope,
          file,
          line,
        });
      }
    }
  }
  return spans;
}

/**
 * Read an OTLP/JSON lines file (one `ExportTraceServiceRequest` per line, as
 * afterstop's file exporter and the Collector's file exporter write it).
 * A line that cannot be read is reported with its file and line number; the
 * rest of the file is still read.
 */
export async function readOtlpJsonLines(file: string): Promise<ReadResult> {
  const result: ReadResult = { spans: [], skipped: [], lines: 0 };
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const text of lines) {
    n++;
    if (text.trim() === '') continue;
    result.lines++;
    try {
      result.spans.push(...flattenRequest(JSON.parse(text), file, n));
    } catch (error) {
      result.skipped.push({ file, line: n, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}

/** Read every `.jsonl` file of a folder (sorted by name), or one file. */
export async function readTraces(target: string): Promise<ReadResult> {
  const files = fs.statSync(target).isDirectory()
    ? fs
        .readdirSync(target)
        .filter((name) => name.endsWith('.jsonl'))
        .sort()
        .map((name) => `${target}/${name}`)
    : [target];
  const all: ReadResult = { spans: [], skipped: [], lines: 0 };
  for (const file of files) {
    const one = await readOtlpJsonLines(file);
    all.spans.push(...one.spans);
    all.skipped.push(...one.skipped);
    all.lines += one.lines;
  }
  return all;
}
