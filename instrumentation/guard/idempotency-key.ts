import { createHmac, hash, randomBytes, randomUUID } from 'node:crypto';

/**
 * Idempotency keys for a tool call's mutating HTTP requests (the guard).
 *
 * A key names one intent: the scope (below), the tool call id, a digest of the
 * call's arguments, the request's method, host and path (without its query),
 * and its place among the call's requests to that endpoint. It is an
 * HMAC-SHA256 of that identity under the guard's secret (configured, else
 * random for the process), shown as a UUID version 8 (RFC 9562 §5.8), the form
 * services that take an `Idempotency-Key` accept. Without the secret, nothing
 * in the traces (where the key and every other input are recorded) lets anyone
 * find a part of the request they do not see, such as a code in its path.
 *
 * A key shared by two intents is harm (a service that honours it answers the
 * second with the first's result: a real charge dropped); a fresh key on a
 * replay is only a missed protection. So the scope is the conversation only
 * when both its id and the call id are strong ({@link strongId}: not a
 * counter such as "0" or "call_1", not a name such as "main"), or when the app
 * says its conversation ids are unique (`scope: 'conversation'`); otherwise the
 * run (each run its own: keys are then not stable across a resume). And the
 * arguments are part of the identity: the same id with other arguments is
 * another intent.
 *
 * - a replay (a resumed checkpoint runs the same tool call again, with the
 *   same id and arguments, in the same conversation) or a retry of the tool
 *   call sends the same keys in the same order (in one process; across
 *   processes with the configured secret);
 * - a request sent again after the last one to that endpoint got no answer, was
 *   turned away unread (408, 425, 429), refused while its key is in progress
 *   (409), or answered with a server error whose outcome is not known (500,
 *   502, 503, 504) takes that request's key;
 * - a request after one that was answered otherwise takes a new place: two
 *   messages posted are two effects.
 * Without a tool call id the model or app gave, none is added.
 */

/** How the guard scopes keys: `auto` (the conversation only when its id and the call id are strong), or `conversation` (the app's word that its conversation ids are unique). */
export type KeyScope = 'auto' | 'conversation';

/** What keyFor needs of the guard's settings. */
export interface KeySettings {
  /** The HMAC key. */
  readonly secret: Buffer;
  readonly scope: KeyScope;
}

/** The secret used when none is configured: random for this process (keys do not match across processes). */
const processSecret = randomBytes(32);
export const defaultKeySettings: KeySettings = { secret: processSecret, scope: 'auto' };

/**
 * A UUID version 8 (RFC 9562 §5.8) holding the first 122 bits of HMAC-SHA256(`secret`, `name`): its
 * version and variant bits set. (One-shot `createHmac`: about as cheap as the SHA-1 it replaced, bench/guard.ts.)
 */
export function uuidV8(name: string, secret: Buffer): string {
  const h = createHmac('sha256', secret).update(name, 'utf8').digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Whether an id is unique enough to scope a key by: at least 16 characters, at least 8 of them different.
 * Provider call ids (`call_` + 24 random characters, `toolu_01…`, UUIDs) are; counters ("0", "call_1",
 * "toolu_12"), short names ("main", "default", "thread-42") and repeated characters are not.
 */
export function strongId(id: string | undefined): boolean {
  if (id === undefined || id.length < 16) return false;
  return new Set(id).size >= 8;
}

/** The statuses that say the request was turned away unread, refused while its key is in progress, or answered with a server error of unknown outcome: its retry is the same request, and carries the same key. */
const UNREAD = new Set([408, 409, 425, 429, 500, 502, 503, 504]);
export const unreadStatus = (status: number): boolean => UNREAD.has(status);

/** The identity a tool call's keys derive from, and where it keeps its endpoints' places (set by {@link keyFor}). */
export interface KeyedCall {
  /** The id the model or the app gave the call; undefined when afterstop made one up. */
  readonly givenCallId: string | undefined;
  readonly conversationId: string | undefined;
  /** Unique to the call's run (not the app's run id, which may repeat): the scope when the conversation cannot be. */
  readonly runKeyScope: string;
  /** The call's arguments (the model's input to the tool), as given. */
  readonly keyArguments: unknown;
  keyEndpoints: Map<string, KeyEndpoint> | undefined;
  /** The digest of its arguments, once made. */
  keyArgumentsDigest: string | undefined;
}

/** One endpoint's requests within a call: the next place, and the places whose request failed (a retry takes one). */
export interface KeyEndpoint {
  next: number;
  failed: number[];
}

/** A request that carries a derived key: told how it ended (`again`: unanswered or turned away unread), so that the next one to its endpoint takes its key. */
export interface KeyedAttempt {
  readonly key: string;
  ended(again: boolean): void;
}

/** Plain objects with their keys in order (the same arguments in another key order are the same intent); bigint as text. */
function canonical(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) sorted[k] = (value as Record<string, unknown>)[k];
  return sorted;
}

/**
 * A digest of a call's arguments. Arguments that cannot be written as JSON (a cycle) get a random one:
 * never the same as another call's (a replay of that call gets a new key: a missed protection, not harm).
 */
export function argumentsDigest(args: unknown): string {
  if (args === undefined) return 'none';
  try {
    const text = typeof args === 'string' ? args : JSON.stringify(args, canonical);
    return hash('sha256', text ?? String(args), 'base64');
  } catch {
    return `unique:${randomUUID()}`;
  }
}

export function keyFor(call: KeyedCall, method: string, host: string, pathname: string, settings: KeySettings = defaultKeySettings): KeyedAttempt | undefined {
  const callId = call.givenCallId;
  if (callId === undefined || callId === '') return undefined;
  // Kept on the call itself: a WeakMap of every call costs the garbage collector more than a field.
  const endpoints = (call.keyEndpoints ??= new Map());
  const endpoint = `${method} ${host.toLowerCase()}${pathname}`;
  let e = endpoints.get(endpoint);
  if (e === undefined) endpoints.set(endpoint, (e = { next: 0, failed: [] }));
  const place = e.failed.length > 0 ? e.failed.shift()! : e.next++;
  const conversation = call.conversationId;
  const byConversation = conversation !== undefined && conversation !== '' && (settings.scope === 'conversation' || (strongId(conversation) && strongId(callId)));
  const scope = byConversation ? ['conversation', conversation] : ['run', call.runKeyScope];
  const digest = (call.keyArgumentsDigest ??= argumentsDigest(call.keyArguments));
  const key = uuidV8(JSON.stringify([...scope, callId, digest, endpoint, place]), settings.secret);
  const state = e;
  let done = false;
  return {
    key,
    ended(again) {
      if (done) return;
      done = true;
      if (again) state.failed.push(place);
    },
  };
}

/** The path of a request target without its query or fragment. */
export function pathnameOf(target: string): string {
  const cut = target.search(/[?#]/);
  return cut < 0 ? target : target.slice(0, cut);
}
