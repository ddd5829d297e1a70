import { isSpanContextValid, TraceFlags, type SpanContext } from '@opentelemetry/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidParent } from '../../provider/valid-parent.js';

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const id = (length: number) => fc.oneof(hex(length), fc.constant('0'.repeat(length)), fc.string({ maxLength: length + 1 }));

describe('isValidParent', () => {
  it("answers as the API's isSpanContextValid, for span contexts met once or again", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ traceId: id(32), spanId: id(16) }), { minLength: 1, maxLength: 8 }), (ids) => {
        const contexts: SpanContext[] = ids.map((i) => ({ ...i, traceFlags: TraceFlags.SAMPLED }));
        for (const ctx of [...contexts, ...contexts]) expect(isValidParent(ctx)).toBe(isSpanContextValid(ctx));
      }),
    );
  });

  it('checks again a span context changed since it was found valid', () => {
    const ctx: SpanContext = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.SAMPLED };
    expect(isValidParent(ctx)).toBe(true);
    ctx.spanId = '0'.repeat(16);
    expect(isValidParent(ctx)).toBe(false);
    ctx.spanId = 'c'.repeat(16);
    ctx.traceId = 'not hex';
    expect(isValidParent(ctx)).toBe(false);
  });
});
