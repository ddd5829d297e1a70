import { afterEach, describe, expect, it } from 'vitest';
import { huntRuns, huntSeed } from './helpers/hunt.js';

/** The size of a property hunt: a prefix of the e2e tier's in the unit tier, any size its variable gives. */
describe('huntRuns', () => {
  const tier = process.env['AFTERSTOP_TEST_TIER'];
  afterEach(() => {
    delete process.env['HUNT_TEST_RUNS'];
    process.env['AFTERSTOP_TEST_TIER'] = tier;
  });

  it('the unit tier (this one, as vitest.config.ts names it) tries the first cases; the e2e tier all of them', () => {
    expect(tier).toBe('unit');
    expect(huntRuns('HUNT_TEST_RUNS', { unit: 3, full: 12 })).toBe(3);
    process.env['AFTERSTOP_TEST_TIER'] = 'e2e';
    expect(huntRuns('HUNT_TEST_RUNS', { unit: 3, full: 12 })).toBe(12);
  });

  it('its variable gives any number of cases, and refuses what is not one', () => {
    process.env['HUNT_TEST_RUNS'] = '500';
    expect(huntRuns('HUNT_TEST_RUNS', { unit: 3, full: 12 })).toBe(500);
    for (const bad of ['0', '-1', '2.5', 'many']) {
      process.env['HUNT_TEST_RUNS'] = bad;
      expect(() => huntRuns('HUNT_TEST_RUNS', { unit: 3, full: 12 })).toThrow(`HUNT_TEST_RUNS=${bad}: give a whole number of cases, 1 or more`);
    }
  });
});

describe('huntSeed', () => {
  const drawn = process.env['AFTERSTOP_HUNT_SEED'];
  afterEach(() => {
    delete process.env['HUNT_TEST_SEED'];
    process.env['AFTERSTOP_HUNT_SEED'] = drawn;
  });

  it("the run's seed, drawn once by vitest.config.ts; its variable repeats another", () => {
    expect(drawn).toMatch(/^\d+$/);
    expect(huntSeed('HUNT_TEST_SEED')).toEqual({ seed: Number(drawn) });
    process.env['HUNT_TEST_SEED'] = '42';
    expect(huntSeed('HUNT_TEST_SEED')).toEqual({ seed: 42 });
    process.env['HUNT_TEST_SEED'] = 'x';
    expect(() => huntSeed('HUNT_TEST_SEED')).toThrow('HUNT_TEST_SEED=x: give a whole number');
  });
});
