import { diag } from '@opentelemetry/api';
import { reportInternalError } from './safe.js';
import type { ContentCaptureOptions, ContentKind } from './types.js';

/**
 * Trace content (tool arguments and results, model input and output) is
 * personal data more often than not: afterstop records none of it unless the
 * app opts in, with {@link captureContent} or the environment
 * (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, the variable the
 * OpenTelemetry GenAI instrumentations read, or `AFTERSTOP_CAPTURE_CONTENT=true`).
 * When it does, every value goes through the app's redaction hook first, then
 * a size cap. A hook that throws, or a value that cannot be serialised, records
 * nothing: content never leaks because telemetry failed.
 */
export const DEFAULT_CONTENT_MAX_BYTES = 4096;
export const TRUNCATED = '…[truncated]';

interface ContentState {
  enabled: boolean;
  redact: ContentCaptureOptions['redact'];
  maxBytes: number;
}

type Env = Record<string, string | undefined>;

function fromEnv(env: Env): ContentState {
  const on = (name: string): boolean => /^true$/i.test(env[name]?.trim() ?? '');
  const raw = env['AFTERSTOP_CONTENT_MAX_BYTES'];
  let maxBytes = DEFAULT_CONTENT_MAX_BYTES;
  if (raw !== undefined && raw.trim() !== '') {
    const n = Number(raw);
    if (Number.isInteger(n) && n > 0) maxBytes = n;
    else diag.warn(`afterstop: ignoring AFTERSTOP_CONTENT_MAX_BYTES=${raw}: not a positive integer`);
  }
  return { enabled: on('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT') || on('AFTERSTOP_CAPTURE_CONTENT'), redact: undefined, maxBytes };
}

let state: ContentState | undefined;
const current = (): ContentState => (state ??= fromEnv(process.env));

/**
 * Choose what content afterstop records, from now on (calls already started
 * keep what they had). Options not given keep their value; the environment
 * gives the first ones.
 */
export function captureContent(options: ContentCaptureOptions): void {
  const was = current();
  const maxBytes = options.maxBytes === undefined ? was.maxBytes : Math.floor(options.maxBytes);
  state = {
    enabled: options.enabled ?? was.enabled,
    redact: 'redact' in options ? options.redact : was.redact,
    maxBytes: Number.isFinite(maxBytes) && maxBytes > 0 ? maxBytes : DEFAULT_CONTENT_MAX_BYTES,
  };
}

/** Whether content is recorded at all: checked before any work is done for it. */
export function contentEnabled(): boolean {
  return current().enabled;
}

/** The size cap, for callers that gather content piece by piece (a streamed answer) and may stop early. */
export function contentMaxBytes(): number {
  return current().maxBytes;
}

/** For tests: back to what the environment says. */
export function resetContentCapture(env: Env = process.env): void {
  state = fromEnv(env);
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, on a character boundary, marked when cut. */
export function capUtf8(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: text this short always fits.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const room = Math.max(0, maxBytes - Buffer.byteLength(TRUNCATED, 'utf8'));
  // Each unit is at least a byte: the first `room` units hold at least `room` bytes (no pair split in two).
  let head = text.slice(0, room);
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  const bytes = Buffer.from(head, 'utf8');
  // Cut at `room`, stepping back over the continuation bytes (10xxxxxx) of a character that would be cut.
  let end = Math.min(room, bytes.length);
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}${TRUNCATED}`;
}

function serialise(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === undefined) return undefined;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/**
 * The attribute value for a piece of content, or undefined when nothing is to
 * be recorded (capture off, no value, the hook said no or threw). Never throws.
 */
export function contentValue(value: unknown, kind: ContentKind, name?: string): string | undefined {
  const s = current();
  if (!s.enabled) return undefined;
  try {
    let text = serialise(value);
    if (text === undefined) return undefined;
    if (s.redact !== undefined) {
      const redacted: unknown = s.redact(text, { kind, ...(name !== undefined ? { name } : {}) });
      if (typeof redacted !== 'string') return undefined;
      text = redacted;
    }
    return capUtf8(text, s.maxBytes);
  } catch (error) {
    reportInternalError(`content ${kind}`, error);
    return undefined;
  }
}
