/** A whole number from the environment (`name`), undefined when it is not set; one that `valid` refuses is an error. */
function envNumber(name: string, valid: (n: number) => boolean, what: string): number | undefined {
  const set = process.env[name];
  if (set === undefined || set === '') return undefined;
  const n = Number(set);
  if (!valid(n)) throw new Error(`${name}=${set}: give ${what}`);
  return n;
}

/**
 * How many cases a property hunt (fast-check) tries. A hunt (`*.hunt.test.ts`) runs in both tiers from the
 * same seed: the unit tier tries its first `unit` cases, for a quick answer; the e2e tier all `full`
 * (vitest.config.ts names the tier in AFTERSTOP_TEST_TIER). `variable` (FUZZ_RUNS, PROPERTY_RUNS,
 * CERTAINTY_RUNS) sets any number, for a longer hunt.
 */
export function huntRuns(variable: string, runs: { unit: number; full: number }): number {
  return envNumber(variable, (n) => Number.isInteger(n) && n >= 1, 'a whole number of cases, 1 or more') ?? (process.env['AFTERSTOP_TEST_TIER'] === 'unit' ? runs.unit : runs.full);
}

/**
 * A hunt's seed: `variable` when set (to repeat the seed a failure printed); else `fixed`, for a hunt that tries
 * the same cases every run; else, for one that explores, the seed vitest.config.ts draws for the run
 * (AFTERSTOP_HUNT_SEED, the same in both tiers, so the unit tier's cases are still the first of the e2e tier's);
 * else fast-check's own.
 */
export function huntSeed(variable: string, fixed?: number): { seed?: number } {
  const whole = (n: number): boolean => Number.isSafeInteger(n);
  const seed = envNumber(variable, whole, 'a whole number') ?? fixed ?? envNumber('AFTERSTOP_HUNT_SEED', whole, 'a whole number');
  return seed === undefined ? {} : { seed };
}
