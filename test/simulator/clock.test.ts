import { describe, expect, it } from 'vitest';
import { nowNs } from '../../simulator/clock.js';

describe('nowNs', () => {
  it('returns epoch nanoseconds as a bigint close to Date.now()', () => {
    const t = nowNs();
    expect(typeof t).toBe('bigint');
    const diffMs = Number(t / 1_000_000n) - Date.now();
    expect(Math.abs(diffMs)).toBeLessThan(1000);
  });

  it('never goes backwards and advances across a wait', async () => {
    const samples = Array.from({ length: 1000 }, () => nowNs());
    for (let i = 1; i < samples.length; i++) expect(samples[i]! >= samples[i - 1]!).toBe(true);
    const before = nowNs();
    await new Promise((r) => setTimeout(r, 20));
    expect(nowNs() - before).toBeGreaterThanOrEqual(15_000_000n);
  });
});
