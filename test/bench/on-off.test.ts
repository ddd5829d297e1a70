import { afterEach, describe, expect, it, vi } from 'vitest';
import { measureOnOff } from '../../bench/on-off.js';

describe('measureOnOff', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('times the same work with the feature on and off, rounds interleaved, the order alternating', async () => {
    // The clock is the test's: each call advances it by what it "costs" (4 ms on, 1 ms off, and the sixth
    // call of a sample 9 ms more), so no other process on the machine can move a figure.
    let now = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    let slow = false;
    let calls = 0;
    const order: string[] = [];
    const r = await measureOnOff(
      () => {
        slow = true;
        order.push('on');
      },
      () => {
        slow = false;
        order.push('off');
      },
      async (i) => {
        calls++;
        now += (slow ? 4 : 1) + (i === 5 ? 9 : 0);
      },
      10,
      4,
    );
    expect(order).toEqual(['on', 'off', 'on', 'off', 'off', 'on', 'on', 'off', 'off', 'on']);
    // The warm-up (a fifth of the iterations on each side) is not among the samples.
    expect(calls).toBe(2 * 2 + 4 * 2 * 10);
    // On: (10 × 4 + 9) / 10 = 4.9 ms a call; off: (10 × 1 + 9) / 10 = 1.9 ms.
    expect(r.onNs).toBeCloseTo(4_900_000, 0);
    expect(r.offNs).toBeCloseTo(1_900_000, 0);
    expect(r.ratio).toBeCloseTo(49 / 19, 9);
    expect(r.onNs / r.offNs).toBe(r.ratio);
    // Each round's on over its own off is the same here, so the middle half of them is that ratio.
    expect(r.spread.low).toBeCloseTo(49 / 19, 9);
    expect(r.spread.high).toBeCloseTo(49 / 19, 9);
  });
});
