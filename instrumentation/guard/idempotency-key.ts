import { v5 as uuidv5 } from 'uuid';

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
 *   (its outcome unknown: the case keys exist for) or was turned away unread
 *   (408, 425, 429) takes that request's key;
 * - a request after one that was answered otherwise (a success, a 4xx, a
 *   5xx) takes a new place: two messages posted are two effects.
 * Without a tool call id the model or app gave, there is nothing stable to
 * derive a key from: none is added.
 */
const NAMESPACE = '5c8f8a3e-1f0b-5d2a-9a39-6f1d8a1c7e42';

/** The statuses that say the request was turned away unread (RFC 9110 §15.5.9, RFC 8470, RFC 6585): its retry is the same request. */
const UNREAD = new Set([408, 425, 429]);
export const unreadStatus = (status: number): boolean => UNREAD.has(status);

/** The identity a tool call's keys derive from. */
export interface KeyedCall {
  /** The id the model or the app gave the call; undefined when afterstop made one up. */
  readonly givenCallId: string | undefined;
  readonly conversationId: string | undefined;
  readonly runId: string;
}

/** One endpoint's requests within a call: the next place, and the places whose request failed (a retry takes one). */
interface Endpoint {
  next: number;
  failed: number[];
}

/** A request that carries a derived key: told how it ended (`again`: unanswered or turned away unread), so that the next one to its endpoint takes its key. */
export interface KeyedAttempt {
  readonly key: string;
  ended(again: boolean): void;
}

const sequences = new WeakMap<KeyedCall, Map<string, Endpoint>>();

export function keyFor(call: KeyedCall, method: string, host: string, pathname: string): KeyedAttempt | undefined {
  if (call.givenCallId === undefined || call.givenCallId === '') return undefined;
  let endpoints = sequences.get(call);
  if (endpoints === undefined) sequences.set(call, (endpoints = new Map()));
  const endpoint = `${method} ${host.toLowerCase()}${pathname}`;
  let e = endpoints.get(endpoint);
  if (e === undefined) endpoints.set(endpoint, (e = { next: 0, failed: [] }));
  const place = e.failed.length > 0 ? e.failed.shift()! : e.next++;
  const scope = call.conversationId !== undefined ? ['conversation', call.conversationId] : ['run', call.runId];
  const key = uuidv5(JSON.stringify([...scope, call.givenCallId, endpoint, place]), NAMESPACE);
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
