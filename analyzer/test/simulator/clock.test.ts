import { describe, expect, it } from 'vitest';
import { makeClock, nowNs, STEP_MS } from '../../simulator/clock.js';

describe('nowNs', () => {
  it('returns epoch nanoseconds as a bigint, within STEP_MS of the Date.now() read either side of it', () => {
    const before = Date.now();
    const t = nowNs();
    const after = Date.now();
    expect(typeof t).toBe('bigint');
    // By construction (makeClock moves its origin past STEP_MS): a clock on another origin or unit falls outside.
    expect(t >= BigInt(before - STEP_MS) * 1_000_000n && t <= BigInt(after + STEP_MS + 1) * 1_000_000n, `${t} within [${before}, ${after}] ms ± ${STEP_MS}`).toBe(true);
  });

  it('never goes backwards and advances across a wait', async () => {
    const samples = Array.from({ length: 1000 }, () => nowNs());
    for (let i = 1; i < samples.length; i++) expect(samples[i]! >= samples[i - 1]!).toBe(true);
    const before = nowNs();
    await new Promise((r) => setTimeout(r, 20));
    expect(nowNs() - before).toBeGreaterThanOrEqual(15_000_000n);
  });

  it('follows a stepped wall clock (a VM paused and resumed), as a process started after the step would; jitter under STEP_MS is not a step', () => {
    let wall = 1_000_000;
    let mono = 500;
    const clock = makeClock(
      () => wall,
      () => mono,
      wall - mono,
    );
    expect(clock()).toBe(1_000_000_000_000n);
    mono += 10.25;
    wall += 10; // Date.now() in whole ms: the monotonic sub-ms stays
    expect(clock()).toBe(1_000_010_250_000n);
    mono += 5;
    wall += 60_005; // paused a minute: the monotonic clock counted none of it
    expect(clock()).toBe(1_060_015_000_000n);
    mono += 1;
    wall += 1;
    expect(clock()).toBe(1_060_016_000_000n);
  });
});
