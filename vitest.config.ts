import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two tiers per package. `unit`: in-process, any OS, the whole tier in minutes.
 * `e2e` (`*.e2e.test.ts`): real apps, children, Chromium, Prometheus, chdb, other Node lines; Linux.
 * A property hunt (`*.hunt.test.ts`, test/helpers/hunt.ts) runs in both: its first cases in `unit`, all of
 * them in `e2e`. `npm test` runs both tiers; `npm run test:unit` / `npm run test:e2e` one.
 */
export const packages = [
  ['span-contract', 'contract/test'],
  ['afterstop', 'instrumentation/test'],
  ['analyzer', 'analyzer/test'],
  ['kit', 'test'],
] as const;

/**
 * Packages whose unit tests share their worker's modules (`isolate: false`): DuckDB's client and the analyzer load
 * once a worker, not once a file (the analyzer's unit tier on 2 CPUs: 113.5 s before, 84 s after).
 * It holds only while none of their unit tests patches a global, mocks a module or sets the environment:
 * test/test-isolation.test.ts checks that. The instrumentation's tests patch modules and globals, and stay isolated.
 */
export const SHARED_MODULES: readonly string[] = ['analyzer'];

/** One seed per vitest run for the hunts that explore (test/helpers/hunt.ts huntSeed): both tiers draw the same cases. */
const huntSeed = process.env['AFTERSTOP_HUNT_SEED'] || String(Date.now() % 2 ** 31);

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts', 'test/packed-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // @actions/workflow-parser imports its JSON schema without an import attribute (it is built for bundlers):
    // vite transforms it instead of Node loading it (test/nightly/ parses the documented workflow with it).
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    projects: packages.flatMap(([name, dir]) => [
      {
        extends: true,
        test: {
          name: `${name}:unit`,
          include: [`${dir}/**/*.test.ts`],
          exclude: [...configDefaults.exclude, `${dir}/**/*.e2e.test.ts`],
          env: { AFTERSTOP_TEST_TIER: 'unit', AFTERSTOP_HUNT_SEED: huntSeed },
          ...(SHARED_MODULES.includes(name) ? { isolate: false } : {}),
        },
      },
      { extends: true, test: { name: `${name}:e2e`, include: [`${dir}/**/*.e2e.test.ts`, `${dir}/**/*.hunt.test.ts`], env: { AFTERSTOP_TEST_TIER: 'e2e', AFTERSTOP_HUNT_SEED: huntSeed } } },
    ]),
  },
});
