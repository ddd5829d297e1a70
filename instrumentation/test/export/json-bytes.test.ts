import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytes } from '../../export/json-bytes.js';

/** The export's byte writer against JSON.stringify, from the smallest buffer (so that it grows) up. */
describe('JsonBytes', () => {
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.string({ minLength: 200, maxLength: 2000 }),
    fc.constantFrom('', 'ツール', '\u0000\u001f"\\\u007f', '\ud800x', 'x\udc00'),
  );

  it('writes strings and values byte for byte as JSON.stringify and UTF-8 do, growing as it goes', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.jsonValue())), (values) => {
        const out = new JsonBytes(1);
        for (const [i, value] of values.entries()) {
          if (i > 0) out.ascii(',');
          if (typeof value === 'string' && i % 2 === 0) out.string(value);
          else expect(out.value(value)).toBe(true);
        }
        expect(out.result().equals(Buffer.from(values.map((v) => JSON.stringify(v)).join(',')))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("writes an object's members as JSON.stringify does, leaving out what it leaves out", () => {
    const out = new JsonBytes(1);
    out.open();
    out.field('a', undefined);
    out.field('b', 'x');
    out.field('c', () => 1);
    out.key('d');
    out.open();
    out.field('e', undefined);
    out.close();
    out.field('f', Number.NaN);
    out.close();
    expect(out.result().toString()).toBe(JSON.stringify({ a: undefined, b: 'x', c: () => 1, d: { e: undefined }, f: Number.NaN }));
  });

  it('writes safe integers as digits, zero-padded to a width', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.nat(20), (n, width) => {
        const out = new JsonBytes(1);
        out.unsigned(n, width);
        expect(out.result().toString()).toBe(String(n).padStart(width, '0'));
      }),
      { numRuns: 500 },
    );
  });
});
