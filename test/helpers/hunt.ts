/**
 * How many cases a property hunt (fast-check) tries. A hunt (`*.hunt.test.ts`) runs in both tiers from the
 * same seed: the unit tier tries its first `unit` cases, for a quick answer; the e2e tier all `full`
 * (vitest.config.ts names the tier in AFTERSTOP_TEST_TIER). `variable` (FUZZ_RUNS, PROPERTY_RUNS,
 * CERTAINTY_RUNS) sets any number, for a longer hunt.
 */
export function huntRuns(variable: string, runs: { unit: number; full: number }): number {
  const set = process.env[variable];
  if (set !== undefined && set !== '') {
    const n = Number(set);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${variable}=${set}: give a whole number of cases, 1 or more`);
    return n;
  }
  return process.env['AFTERSTOP_TEST_TIER'] === 'unit' ? runs.unit : runs.full;
}

/**
 * The seed of a hunt that explores (new cases each vitest run): `variable` when set (to repeat the seed a failure
 * printed), else the one vitest.config.ts draws for the run (AFTERSTOP_HUNT_SEED, the same in both tiers, so the
 * unit tier's cases are still the first of the e2e tier's), else fast-check's own.
 */
export function huntSeed(variable: string): { seed?: number } {
  for (const name of [variable, 'AFTERSTOP_HUNT_SEED']) {
    const set = process.env[name];
    if (set === undefined || set === '') continue;
    const n = Number(set);
    if (!Number.isSafeInteger(n)) throw new Error(`${name}=${set}: give a whole number`);
    return { seed: n };
  }
  return {};
}
