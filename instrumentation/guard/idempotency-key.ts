import { hash } from 'node:crypto';

/**
 * Idempotency keys for a tool call's mutating HTTP requests (the guard).
 *
 * A key is a name-based UUID (RFC 9562 version 5, the form every service that
 * takes an `Idempotency-Key` accepts) of the conversation (without one, the
 * run: ids some providers give, such as "0", repeat across conversations), the
 * tool call id, the request's method, host and path (without its query), and
 * its place among the call's requests to that endpoint. So:
 * - a replay (a resumed checkpoint runs the same tool call again, with the
 *   same id, in the same conversation) or a retry of the tool call (the same
 *   id again) sends the same keys in the same order;
 * - a request sent again after the last one to that endpoint got no answer
 *   (its outcome unknown: the case keys exist for), was turned away unread
 *   (408, 425, 429), or was refused because a request with that key is still
 *   in progress (409: Stripe, the IETF Idempotency-Key draft) takes that
 *   request's key;
 * - a request sent again after a server error (500, 502, 503, 504: the
 *   outcome is not known, and Stripe retries those with the same key) takes
 *   that request's key too;
 * - a request after one that was answered otherwise (a success, another
 *   4xx, a 501) takes a new place: two messages posted are two effects.
 * Without a tool call id the model or app gave, there is nothing stable to
 * derive a key from: none is added.
 */
/** afterstop's namespace for its v5 keys, as bytes. */
const NAMESPACE = Buffer.from('5c8f8a3e1f0b5d2a9a396f1d8a1c7e42', 'hex');

/**
 * A name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 of the namespace and the name, its version and
 * variant bits set. Written here rather than taken from the `uuid` package: in the loop of a tool's
 * requests its v5 cost about 11 µs a key (bench/guard.ts), Node's one-shot hash about 1 µs.
 */
export function uuidV5(name: string, namespace: Buffer = NAMESPACE): string {
  const h = hash('sha1', Buffer.concat([namespace, Buffer.from(name, 'utf8')]), 'hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The statuses that say the request was turned away unread (RFC 9110 §15.5.9, RFC 8470, RFC 6585), or
 * refused while the first request with its key is in progress (409: the IETF Idempotency-Key
 * draft, Stripe), or answered with a server error whose outcome is not known (500, 502, 503, 504: Stripe retries
 * them with the same key): its retry is the same request, and must carry the same key (a new one would be a
 * second effect once the first completes).
 */
const UNREAD = new Set([408, 409, 425, 429, 500, 502, 503, 504]);
export const unreadStatus = (status: number): boolean => UNREAD.has(status);

/** The identity a tool call's keys derive from, and where it keeps its endpoints' places (set by {@link keyFor}). */
export interface KeyedCall {
  /** The id the model or the app gave the call; undefined when afterstop made one up. */
  readonly givenCallId: string | undefined;
  readonly conversationId: string | undefined;
  readonly runId: string;
  keyEndpoints: Map<string, KeyEndpoint> | undefined;
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

export function keyFor(call: KeyedCall, method: string, host: string, pathname: string): KeyedAttempt | undefined {
  if (call.givenCallId === undefined || call.givenCallId === '') return undefined;
  // Kept on the call itself: a WeakMap of every call costs the garbage collector more than a field.
  const endpoints = (call.keyEndpoints ??= new Map());
  const endpoint = `${method} ${host.toLowerCase()}${pathname}`;
  let e = endpoints.get(endpoint);
  if (e === undefined) endpoints.set(endpoint, (e = { next: 0, failed: [] }));
  const place = e.failed.length > 0 ? e.failed.shift()! : e.next++;
  const scope = call.conversationId !== undefined ? ['conversation', call.conversationId] : ['run', call.runId];
  const key = uuidV5(JSON.stringify([...scope, call.givenCallId, endpoint, place]));
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
