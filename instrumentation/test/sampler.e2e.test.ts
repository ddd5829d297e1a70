import { describe, expect, it } from 'vitest';
import { distModule, runModule, tempCwd } from '../../test/helpers/child.js';

/**
 * A sampler that drops runs drops their Stop markers with them (they follow the run's sampling decision):
 * afterstop says so, once, on stderr, instead of measuring nothing in silence.
 */
const INDEX = distModule('instrumentation/index.js');
const folder = tempCwd();

const app = `
  import { setup, startRun, shutdown } from ${JSON.stringify(INDEX)};
  setup({ exporter: 'file', tracesDir: 'traces' });
  for (let i = 0; i < 3; i++) {
    const run = startRun({ agentName: 'support' });
    await run.cancel({ source: 'user' });
    run.end();
  }
  await shutdown();
  console.log('done');
`;

describe('a sampler that drops runs', () => {
  for (const [name, env] of [
    ['always_off', { OTEL_TRACES_SAMPLER: 'always_off' }],
    ['a ratio of 0', { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }],
  ] as const) {
    it(`${name}: said once on stderr, the app runs on`, async () => {
      const result = await runModule(app, { cwd: folder(), env });
      expect(result.stdout.trim()).toBe('done');
      expect(result.stderr.match(/the trace sampler dropped a run/g)).toHaveLength(1);
    });
  }

  it('the default sampler: nothing said', async () => {
    const result = await runModule(app, { cwd: folder() });
    expect(result.stdout.trim()).toBe('done');
    expect(result.stderr).toBe('');
  });
});
