import { diag, type Attributes } from '@opentelemetry/api';
import { boundedJson, sliceUnits } from './bounded-json.js';
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
/** The smallest cap: room for the mark and some text. */
export const MIN_CONTENT_MAX_BYTES = 32;
export const TRUNCATED = '…[truncated]';
const TRUNCATED_BYTES = Buffer.byteLength(TRUNCATED, 'utf8');
/**
 * How much of a value is serialised (in characters) before the hook runs: four
 * times the cap, so that a hook that shortens what it redacts still has text
 * to fill the cap, and the cut made here is far from the part that is kept.
 */
const MARGIN = 4;

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
    if (Number.isInteger(n) && n >= MIN_CONTENT_MAX_BYTES) maxBytes = n;
    else diag.warn(`afterstop: ignoring AFTERSTOP_CONTENT_MAX_BYTES=${raw}: not an integer of at least ${MIN_CONTENT_MAX_BYTES}`);
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
  try {
    const was = current();
    const o: Partial<ContentCaptureOptions> = options !== null && typeof options === 'object' ? options : {};
    const maxBytes = o.maxBytes === undefined ? was.maxBytes : Math.floor(Number(o.maxBytes));
    state = {
      enabled: o.enabled === undefined ? was.enabled : o.enabled === true,
      // Anything but a function as the hook records nothing rather than everything.
      redact: 'redact' in o ? (typeof o.redact === 'function' || o.redact === undefined ? o.redact : () => undefined) : was.redact,
      maxBytes: Number.isFinite(maxBytes) ? Math.max(MIN_CONTENT_MAX_BYTES, maxBytes) : DEFAULT_CONTENT_MAX_BYTES,
    };
  } catch (error) {
    reportInternalError('captureContent', error);
  }
}

/** Whether content is recorded at all: checked before any work is done for it. */
export function contentEnabled(): boolean {
  return current().enabled;
}

/** How many characters of a value piece by piece (a streamed answer) are worth gathering: the rest would be cut. */
export function contentBudget(): number {
  return current().maxBytes * MARGIN;
}

/** For tests: back to what the environment says. */
export function resetContentCapture(env: Env = process.env): void {
  state = fromEnv(env);
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes, on a character boundary, and
 * marked when cut; `cut`: the text was already cut short (it gets the mark
 * even when it fits).
 */
export function capUtf8(text: string, maxBytes: number, cut = false): string {
  const fits = text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes;
  if (fits && !cut) return text;
  const room = Math.max(0, maxBytes - TRUNCATED_BYTES);
  if (cut && (text.length * 3 <= room || Buffer.byteLength(text, 'utf8') <= room)) return `${text}${TRUNCATED}`;
  // Each unit is at least a byte: the first `room` units hold at least `room` bytes (no pair split in two).
  const bytes = Buffer.from(sliceUnits(text, room), 'utf8');
  // Cut at `room`, stepping back over the continuation bytes (10xxxxxx) of a character that would be cut.
  let end = Math.min(room, bytes.length);
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}${TRUNCATED}`;
}

/**
 * The attribute value for a piece of content, or undefined when nothing is to
 * be recorded (capture off, no value, the hook said no or threw). Never throws.
 */
export function contentValue(value: unknown, kind: ContentKind, name?: string, alreadyCut = false): string | undefined {
  const s = current();
  if (!s.enabled) return undefined;
  try {
    // Serialised up to a budget (a string is its own text), so a huge value costs the app no more than the budget.
    const budget = s.maxBytes * MARGIN;
    const serialised = typeof value === 'string' ? { text: sliceUnits(value, budget), cut: value.length > budget } : boundedJson(value, budget);
    if (serialised === undefined) return undefined;
    let text = serialised.text;
    if (s.redact !== undefined) {
      const redacted: unknown = s.redact(text, { kind, ...(name !== undefined ? { name } : {}) });
      if (typeof redacted !== 'string') return undefined;
      text = redacted;
    }
    return capUtf8(text, s.maxBytes, serialised.cut || alreadyCut);
  } catch (error) {
    reportInternalError(`content ${kind}`, error);
    return undefined;
  }
}

/** Put a piece of content on `attributes` under `key`, when it is to be recorded (see {@link contentValue}). */
export function setContent(attributes: Attributes, key: string, value: unknown, kind: ContentKind, name?: string, alreadyCut = false): void {
  if (value === undefined) return;
  const text = contentValue(value, kind, name, alreadyCut);
  if (text !== undefined) attributes[key] = text;
}
