import { v5 as uuidv5 } from 'uuid';

/**
 * Idempotency keys for a tool call's mutating HTTP requests (the guard).
 *
 * A key is a name-based UUID (RFC 9562 version 5, the form every service that
 * takes an `Idempotency-Key` accepts) of the conversation, the tool call id,
 * the request's method, host and path (without its query), and its place
 * among the call's requests to that endpoint. So:
 * - a replay (a resumed checkpoint runs the same tool call again, with the
 *   same id, in the same conversation) sends the same keys in the same order;
 * - a retry (the same request again after the last one to that endpoint
 *   failed: no answer, or a status of 408, 409, 425, 429 or 5xx) reuses the
 *   failed request's key;
 * - two requests of one call to one endpoint that both succeed (two messages
 *   posted) get two keys: the second is not a duplicate of the first.
 * Without a tool call id there is nothing stable to derive a key from: none
 * is added.
 */
const NAMESPACE = '5c8f8a3e-1f0b-5d2a-9a39-6f1d8a1c7e42';

/** The statuses after which a client retries the same request (RFC 9110 §15, and the Idempotency-Key draft's 409/425). */
const RETRIED = new Set([408, 409, 425, 429]);
export const failedStatus = (status: number): boolean => RETRIED.has(status) || status >= 500;

/** The identity a tool call's keys derive from. */
export interface KeyedCall {
  readonly callId: string | undefined;
  readonly conversationId: string | undefined;
}

/** One endpoint's requests within a call: the next place, and the places whose request failed (a retry takes one). */
interface Endpoint {
  next: number;
  failed: number[];
}

/** A request that carries a derived key: told how it ended, so that a retry of a failed one takes its key. */
export interface KeyedAttempt {
  readonly key: string;
  ended(failed: boolean): void;
}

const sequences = new WeakMap<KeyedCall, Map<string, Endpoint>>();

export function keyFor(call: KeyedCall, method: string, host: string, pathname: string): KeyedAttempt | undefined {
  if (call.callId === undefined || call.callId === '') return undefined;
  let endpoints = sequences.get(call);
  if (endpoints === undefined) sequences.set(call, (endpoints = new Map()));
  const endpoint = `${method} ${host.toLowerCase()}${pathname}`;
  let e = endpoints.get(endpoint);
  if (e === undefined) endpoints.set(endpoint, (e = { next: 0, failed: [] }));
  const place = e.failed.length > 0 ? e.failed.shift()! : e.next++;
  const key = uuidv5(JSON.stringify([call.conversationId ?? null, call.callId, endpoint, place]), NAMESPACE);
  const state = e;
  let done = false;
  return {
    key,
    ended(failed) {
      if (done) return;
      done = true;
      if (failed) state.failed.push(place);
    },
  };
}

/** The path of a request target without its query or fragment. */
export function pathnameOf(target: string): string {
  const cut = target.search(/[?#]/);
  return cut < 0 ? target : target.slice(0, cut);
}
