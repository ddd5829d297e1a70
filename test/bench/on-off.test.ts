import { describe, expect, it } from 'vitest';
import { measureOnOff } from '../../bench/on-off.js';

describe('measureOnOff', () => {
  it('times the same work with the feature on and off, rounds interleaved, the order alternating', async () => {
    let slow = false;
    const order: string[] = [];
    const busy = (ms: number): void => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const r = await measureOnOff(
      () => {
        slow = true;
        order.push('on');
      },
      () => {
        slow = false;
        order.push('off');
      },
      async () => busy(slow ? 0.4 : 0.1),
      10,
      4,
    );
    expect(order).toEqual(['on', 'off', 'on', 'off', 'off', 'on', 'on', 'off', 'off', 'on']);
    expect(r.ratio).toBeGreaterThan(2);
    expect(r.onNs / r.offNs).toBe(r.ratio);
    // Each round's on over its own off: every one is over 2 here, so the middle half of them is too.
    expect(r.spread.low).toBeGreaterThan(2);
    expect(r.spread.low).toBeLessThanOrEqual(r.spread.high);
  });
});
