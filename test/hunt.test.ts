import { afterEach, describe, expect, it, vi } from 'vitest';
import { huntRuns, huntSeed } from './helpers/hunt.js';

/** The size and seed of a property hunt: a prefix of the e2e tier's in the unit tier, any size or seed its variable gives. */
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('huntRuns', () => {
  it('the unit tier (this one, as vitest.config.ts names it) tries the first cases; the e2e tier all of them', () => {
    expect(process.env['AFTERSTOP_TEST_TIER']).toBe('unit');
    expect(huntRuns('HUNT_TEST_RUNS', { unit: 3, full: 12 })).toBe(3);
    vi.stubEnv('AFTERSTOP_TEST_TIER', 'e2e');
    expect(huntRuns('HUNT_TEST_RUNS', { unit: 3, full: 12 })).toBe(12);
  });

  it('its variable gives any number of cases, and refuses what is not one', () => {
    vi.stubEnv('HUNT_TEST_RUNS', '500');
    expect(huntRuns('HUNT_TEST_RUNS', { unit: 3, full: 12 })).toBe(500);
    for (const bad of ['0', '-1', '2.5', 'many']) {
      vi.stubEnv('HUNT_TEST_RUNS', bad);
      expect(() => huntRuns('HUNT_TEST_RUNS', { unit: 3, full: 12 })).toThrow(`HUNT_TEST_RUNS=${bad}: give a whole number of cases, 1 or more`);
    }
  });
});

describe('huntSeed', () => {
  it("the run's seed, drawn once by vitest.config.ts, or a hunt's fixed one; its variable repeats another", () => {
    const drawn = process.env['AFTERSTOP_HUNT_SEED'];
    expect(drawn).toMatch(/^\d+$/);
    expect(huntSeed('HUNT_TEST_SEED')).toEqual({ seed: Number(drawn) });
    expect(huntSeed('HUNT_TEST_SEED', 7)).toEqual({ seed: 7 });
    vi.stubEnv('HUNT_TEST_SEED', '42');
    expect(huntSeed('HUNT_TEST_SEED')).toEqual({ seed: 42 });
    expect(huntSeed('HUNT_TEST_SEED', 7)).toEqual({ seed: 42 });
    vi.stubEnv('HUNT_TEST_SEED', 'x');
    expect(() => huntSeed('HUNT_TEST_SEED')).toThrow('HUNT_TEST_SEED=x: give a whole number');
  });
});
