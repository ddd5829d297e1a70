import { describe, expect, it } from 'vitest';
import { median, quartiles } from '../../bench/child.js';

describe('the spread of paired rounds', () => {
  it('gives the lower and upper quartiles by nearest rank, whatever the order', () => {
    expect(quartiles([1.6, 0.9, 1.1, 1.0, 1.3, 1.2, 0.8, 1.05, 1.4])).toEqual({ low: 1.0, high: 1.3 });
    expect(quartiles([2, 1, 4, 3])).toEqual({ low: 1, high: 3 });
    expect(quartiles([5])).toEqual({ low: 5, high: 5 });
  });

  it('holds the median between them', () => {
    const xs = [3.2, 4.7, 4.1, 3.4, 5.9, 3.9, 4.4];
    const q = quartiles(xs);
    expect(q.low).toBeLessThanOrEqual(median(xs));
    expect(q.high).toBeGreaterThanOrEqual(median(xs));
  });

  it('is NaN for no rounds, not a number made up', () => {
    expect(quartiles([])).toEqual({ low: Number.NaN, high: Number.NaN });
  });
});
