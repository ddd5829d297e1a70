import { createHmac, hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { argumentsDigest, keyFor, pathnameOf, strongId, uuidV8, type KeyedCall, type KeySettings } from '../../guard/idempotency-key.js';

const V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SECRET: KeySettings = { secret: Buffer.from('a configured secret of 32 bytes!'), scope: 'auto' };
/** Strong ids, as providers give them. */
const CALL = 'call_Vt8Qm2LxR4kPz9WcY1nB6sJd';
const CALL2 = 'call_Hq3Zr7NwE5yTb2KmU8gXc4Pa';
const THREAD = '3f6c2a9e-8b1d-4e7f-a5c0-9d2b7e1f4a68';

describe('uuidV8', () => {
  it('is the first 122 bits of HMAC-SHA256 under the secret, as an RFC 9562 version 8 UUID', () => {
    const h = createHmac('sha256', SECRET.secret).update('name').digest('hex');
    const key = uuidV8('name', SECRET.secret);
    expect(key).toMatch(V8);
    expect(key.replaceAll('-', '').slice(0, 12)).toBe(h.slice(0, 12));
    for (const name of ['', 'a', 'é😀', 'x'.repeat(10_000)]) expect(uuidV8(name, SECRET.secret)).toMatch(V8);
    expect(uuidV8('name', Buffer.from('another secret, also 32 bytes!!!'))).not.toBe(key);
  });
});

describe('strongId', () => {
  it('counters, short names and repeated characters are weak; provider ids and UUIDs are strong', () => {
    expect(['0', 'call_1', 'call_12', 'toolu_12', 'main', 'default', 'thread-42', 'aaaaaaaaaaaaaaaaaaaa', 'call_0000000000001', undefined].map(strongId)).toEqual(Array(10).fill(false));
    expect([CALL, 'toolu_01A09q90qw90lq917835lq9', THREAD, 'thread-abort-resume'].map(strongId)).toEqual([true, true, true, true]);
  });
});

describe('keyFor', () => {
  const call = (id: string | undefined, conversation?: string, run = 'r1', args: unknown = { amount: 5 }): KeyedCall => ({
    givenCallId: id,
    conversationId: conversation,
    runKeyScope: run,
    keyArguments: args,
    keyEndpoints: undefined,
    keyArgumentsDigest: undefined,
  });
  const key = (c: KeyedCall, method = 'POST', host = 'h', path = '/p', settings = SECRET) => keyFor(c, method, host, path, settings)!.key;

  it('strong ids: the same call id, conversation, arguments and endpoint give the same keys in the same order, in any run', () => {
    const first = call(CALL, THREAD);
    const replay = call(CALL, THREAD, 'r2', { amount: 5 });
    const a = [key(first, 'POST', 'api.example.com', '/charge'), key(first, 'POST', 'api.example.com', '/charge')];
    const b = [key(replay, 'POST', 'api.example.com', '/charge'), key(replay, 'POST', 'API.example.com', '/charge')];
    expect(b).toEqual(a);
    expect(a[0]).not.toBe(a[1]);
    expect(a[0]).toMatch(V8);
  });

  it('another method, host, path, call, conversation or arguments: another key; no conversation: the run scopes it', () => {
    const keys = [
      key(call(CALL, THREAD)),
      key(call(CALL, THREAD), 'PUT'),
      key(call(CALL, THREAD), 'POST', 'h2'),
      key(call(CALL, THREAD), 'POST', 'h', '/q'),
      key(call(CALL2, THREAD)),
      key(call(CALL, `${THREAD}x`)),
      key(call(CALL, THREAD, 'r1', { amount: 6 })),
      key(call(CALL, undefined, 'r1')),
      key(call(CALL, undefined, 'r2')),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('the same arguments in another key order are the same intent; arguments that cannot be written as JSON get a digest of their own', () => {
    expect(key(call(CALL, THREAD, 'r1', { to: 'a', amount: 5 }))).toBe(key(call(CALL, THREAD, 'r2', { amount: 5, to: 'a' })));
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(argumentsDigest(cyclic)).not.toBe(argumentsDigest(cyclic));
    expect(argumentsDigest({ n: 1n })).toBe(argumentsDigest({ n: 1n }));
  });

  it('weak ids never share a key across turns or users: call "0" in two turns of one conversation, and "call_1" in two users’ "main" conversations', () => {
    // Before: one key for both turns (the service answered the second charge with the first: a charge dropped).
    const turn1 = key(call('0', THREAD, 'turn-1', { amount: 5 }));
    const turn2 = key(call('0', THREAD, 'turn-2', { amount: 7 }));
    const turn2Same = key(call('0', THREAD, 'turn-2b', { amount: 5 }));
    const alice = key(call('call_1', 'main', 'run-alice', { to: 'x' }));
    const bob = key(call('call_1', 'main', 'run-bob', { to: 'x' }));
    expect(new Set([turn1, turn2, turn2Same]).size).toBe(3);
    expect(alice).not.toBe(bob);
  });

  it('scope "conversation": the app’s word that its conversation ids are unique makes weak call ids replay-stable', () => {
    const settings: KeySettings = { ...SECRET, scope: 'conversation' };
    expect(key(call('0', 'main', 'r1'), 'POST', 'h', '/p', settings)).toBe(key(call('0', 'main', 'r2'), 'POST', 'h', '/p', settings));
    // Arguments still tell two intents apart.
    expect(key(call('0', 'main', 'r1', { amount: 5 }), 'POST', 'h', '/p', settings)).not.toBe(key(call('0', 'main', 'r2', { amount: 7 }), 'POST', 'h', '/p', settings));
  });

  it('a request after one that went unanswered takes its key; after one answered, a new key; none without a given call id', () => {
    const c = call(CALL, THREAD);
    const first = keyFor(c, 'POST', 'h', '/p', SECRET)!;
    first.ended(true);
    const retry = keyFor(c, 'POST', 'h', '/p', SECRET)!;
    expect(retry.key).toBe(first.key);
    retry.ended(false);
    expect(keyFor(c, 'POST', 'h', '/p', SECRET)!.key).not.toBe(first.key);
    expect(keyFor(call(undefined, THREAD), 'POST', 'h', '/p', SECRET)).toBeUndefined();
  });

  it('a secret in the path is not recoverable from the key: the right code, every other input known, does not give the key without the secret', () => {
    // The key of POST /verify/<code>, every other input in the trace (conversation, call id, arguments, host).
    const code = '493027';
    const c = call(CALL, THREAD, 'r1', { user: 'u1' });
    const seen = key(c, 'POST', 'api.bank.example', `/verify/${code}`, { scope: 'auto', secret: Buffer.from('0123456789abcdef0123456789abcdef') });
    const digest = argumentsDigest({ user: 'u1' });
    const nameOf = (guess: string): string => JSON.stringify(['conversation', THREAD, CALL, digest, `POST api.bank.example/verify/${guess}`, 0]);
    // With the secret, this identity gives the key: the name is the one the guard hashes, so what follows is not vacuous.
    expect(uuidV8(nameOf(code), Buffer.from('0123456789abcdef0123456789abcdef'))).toBe(seen);
    // A brute force over the 10^6 six-digit codes finds the code only if the right guess gives the key: any other
    // guess is another name, and matching it would be a collision of 122 bits. So the attacker's best guesses at the
    // secret, none (the name-based v5 derivation of before) or an empty HMAC key, are tried with the right code and a
    // thousand others around it: none gives the key.
    const v5 = (name: string): string => {
      const h = hash('sha1', Buffer.concat([Buffer.from('5c8f8a3e1f0b5d2a9a396f1d8a1c7e42', 'hex'), Buffer.from(name)]), 'hex');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    };
    const empty = Buffer.alloc(0);
    const found: string[] = [];
    for (let n = Number(code) - 500; n <= Number(code) + 500; n++) {
      const guess = String(n).padStart(6, '0');
      if (uuidV8(nameOf(guess), empty) === seen || v5(nameOf(guess)) === seen) found.push(guess);
    }
    expect(found).toEqual([]);
  });

  it('pathnameOf drops the query and fragment', () => {
    expect([pathnameOf('/a/b?x=1#f'), pathnameOf('/a#f'), pathnameOf('/')]).toEqual(['/a/b', '/a', '/']);
  });
});
