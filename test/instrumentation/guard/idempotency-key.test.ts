import { describe, expect, it } from 'vitest';
import { keyFor, pathnameOf, uuidV5, type KeyedCall } from '../../../instrumentation/guard/idempotency-key.js';

describe('uuidV5', () => {
  it('is RFC 9562’s name-based UUID: its test vector (DNS namespace, www.example.com)', () => {
    expect(uuidV5('www.example.com', Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex'))).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('gives a version 5, RFC-variant UUID for any name', () => {
    for (const name of ['', 'a', 'é😀', 'x'.repeat(10_000)]) expect(uuidV5(name)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('keyFor', () => {
  const call = (id: string | undefined, conversation?: string, run = 'r1'): KeyedCall => ({ givenCallId: id, conversationId: conversation, runId: run, keyEndpoints: undefined });

  it('the same call id, conversation and endpoint: the same keys in the same order, in any run', () => {
    const first = call('c1', 'thread');
    const replay = call('c1', 'thread', 'r2');
    const a = [keyFor(first, 'POST', 'api.example.com', '/charge')!.key, keyFor(first, 'POST', 'api.example.com', '/charge')!.key];
    const b = [keyFor(replay, 'POST', 'api.example.com', '/charge')!.key, keyFor(replay, 'POST', 'API.example.com', '/charge')!.key];
    expect(b).toEqual(a);
    expect(a[0]).not.toBe(a[1]);
  });

  it('another method, host, path, call or conversation: another key; no conversation: the run scopes it', () => {
    const key = (c: ReturnType<typeof call>, method = 'POST', host = 'h', path = '/p') => keyFor(c, method, host, path)!.key;
    const keys = [key(call('c', 't')), key(call('c', 't'), 'PUT'), key(call('c', 't'), 'POST', 'h2'), key(call('c', 't'), 'POST', 'h', '/q'), key(call('d', 't')), key(call('c', 'u')), key(call('c', undefined, 'r1')), key(call('c', undefined, 'r2'))];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a request after one that went unanswered takes its key; after one answered, a new key; none without a given call id', () => {
    const c = call('c', 't');
    const first = keyFor(c, 'POST', 'h', '/p')!;
    first.ended(true);
    const retry = keyFor(c, 'POST', 'h', '/p')!;
    expect(retry.key).toBe(first.key);
    retry.ended(false);
    expect(keyFor(c, 'POST', 'h', '/p')!.key).not.toBe(first.key);
    expect(keyFor(call(undefined, 't'), 'POST', 'h', '/p')).toBeUndefined();
  });

  it('pathnameOf drops the query and fragment', () => {
    expect([pathnameOf('/a/b?x=1#f'), pathnameOf('/a#f'), pathnameOf('/')]).toEqual(['/a/b', '/a', '/']);
  });
});
