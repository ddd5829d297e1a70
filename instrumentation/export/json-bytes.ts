/**
 * JSON text written straight into a growing byte buffer, as UTF-8: the export's requests
 * (otlp-json-encoder.ts). Printable ASCII, most of a span's text (ids, keys, names, numbers), is copied a
 * character at a time in JS, with no string made and no call into the runtime; any other string is
 * escaped by JSON.stringify and written as UTF-8. Building the request as objects for JSON.stringify made
 * some thirty objects and a string per span in the app's heap, collected by the app's own minor GCs.
 */
export class JsonBytes {
  private bytes: Buffer;
  private at = 0;
  /** Per open object (open/close), whether a member was written in it yet: the next one is led by a comma. */
  private readonly members = new Uint8Array(MAX_DEPTH);
  private depth = 0;

  constructor(capacity: number) {
    this.bytes = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  /** Text known to be printable ASCII that needs no escaping (punctuation, keys the encoder names, numbers). */
  ascii(text: string): void {
    const n = text.length;
    this.room(n);
    const bytes = this.bytes;
    let at = this.at;
    for (let i = 0; i < n; i++) bytes[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /** A string as JSON.stringify writes it (quoted and escaped). */
  string(text: string): void {
    const n = text.length;
    this.room(n + 2);
    const bytes = this.bytes;
    let at = this.at;
    bytes[at++] = QUOTE;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        // Escapes, text beyond ASCII or a lone surrogate: as JSON.stringify writes it, in UTF-8.
        this.utf8(JSON.stringify(text));
        return;
      }
      bytes[at++] = c;
    }
    bytes[at++] = QUOTE;
    this.at = at;
  }

  /** `{`, an object's start: its members are written by {@link key} or {@link field}. */
  open(): void {
    this.ascii('{');
    this.members[++this.depth] = 0;
  }

  close(): void {
    this.ascii('}');
    this.depth--;
  }

  /** An object member's key (`name` plain ASCII), led by a comma after the first: its value is written next. */
  key(name: string): void {
    if (this.members[this.depth] === 1) this.ascii(',"');
    else {
      this.members[this.depth] = 1;
      this.ascii('"');
    }
    this.ascii(name);
    this.ascii('":');
  }

  /** A member as JSON.stringify writes an object's: left out when the value writes nothing (undefined). */
  field(name: string, value: unknown): void {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return;
    this.key(name);
    this.value(value);
  }

  /** A non-negative safe integer's digits, zero-padded to `width`, without making a string. */
  unsigned(value: number, width = 0): void {
    let length = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) length++;
    if (length < width) length = width;
    this.room(length);
    const bytes = this.bytes;
    let rest = value;
    for (let at = this.at + length - 1; at >= this.at; at--) {
      bytes[at] = ZERO + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    this.at += length;
  }

  /** A number as JSON.stringify writes it (NaN and ±Infinity as null). */
  number(value: number): void {
    this.ascii(Number.isFinite(value) ? String(value) : 'null');
  }

  /** Any value as JSON.stringify writes it; false (nothing written) when it writes nothing (undefined, a function). */
  value(value: unknown): boolean {
    if (typeof value === 'string') this.string(value);
    else if (typeof value === 'number') this.number(value);
    else {
      const text = JSON.stringify(value) as string | undefined;
      if (text === undefined) return false;
      this.utf8(text);
    }
    return true;
  }

  /** The bytes written so far (a view of the buffer, which later writes do not change). */
  result(): Buffer {
    return this.bytes.subarray(0, this.at);
  }

  private utf8(text: string): void {
    this.room(text.length * 3);
    this.at += this.bytes.write(text, this.at, 'utf8');
  }

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.at + n));
    this.bytes.copy(grown, 0, 0, this.at);
    this.bytes = grown;
  }
}

/** Objects nest this deep at most in a request (an attribute's kvlist values are written without open/close). */
const MAX_DEPTH = 16;
const ZERO = 0x30;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
