import { describe, expect, it } from 'vitest';
import { benchToolCall } from '../../bench/tool-call.js';

// The benchmark's figures are reported by `npm run bench`, never asserted here:
// this only checks that it measures what it says, on a short run.
describe('tool-call benchmark', () => {
  it('measures the four variants in one run and reports their ratios', async () => {
    const result = await benchToolCall(500, 1);
    for (const figures of [result.hotPath, result.withExport]) {
      for (const value of [figures.bareNs, figures.bareSpanNs, figures.contractSpanNs, figures.afterstopNs]) {
        expect(Number.isFinite(value)).toBe(true);
        expect(value).toBeGreaterThan(0);
      }
      expect(figures.ratioToBareSpan).toBeCloseTo(figures.afterstopNs / figures.bareSpanNs, 9);
      expect(figures.ratioToBare).toBeCloseTo(figures.afterstopNs / figures.bareNs, 9);
      expect(figures.ratioToContractSpan).toBeCloseTo(figures.afterstopNs / figures.contractSpanNs, 9);
      expect(figures.contractRatioToBareSpan).toBeCloseTo(figures.contractSpanNs / figures.bareSpanNs, 9);
    }
  });
});
