import { describe, expect, it } from 'vitest';
import { benchToolCall } from '../../bench/tool-call.js';

// The benchmark's figures are reported by `npm run bench`, never asserted here:
// this only checks that it measures what it says, on a short run.
describe('tool-call benchmark', () => {
  it('measures the three variants in one run and reports their ratios', async () => {
    const result = await benchToolCall(500, 1);
    for (const value of [result.bareNs, result.bareSpanNs, result.afterstopNs]) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThan(0);
    }
    expect(result.ratioToBareSpan).toBeCloseTo(result.afterstopNs / result.bareSpanNs, 9);
    expect(result.ratioToBare).toBeCloseTo(result.afterstopNs / result.bareNs, 9);
  });
});
