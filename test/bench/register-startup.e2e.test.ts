import { describe, expect, it } from 'vitest';
import { benchRegisterStartup } from '../../bench/register-startup.js';

/**
 * The register-startup bench runs (one pair): both sides start and exit 0, their times are measured, and
 * the module files each loads are counted. The figures themselves are bench rows (docs/benchmarks.md),
 * never asserted here; only what does not depend on the machine: with spans to files, afterstop/register
 * loads fewer module files than a bare NodeSDK (it loads neither the OTLP exporter nor the NodeSDK).
 */
describe('bench register-startup', () => {
  it('measures both sides and counts the module files each loads', async () => {
    const r = await benchRegisterStartup(1);
    for (const side of [r.afterstop, r.bareNodeSdk]) {
      expect(side.ms).toBeGreaterThan(0);
      expect(side.cpuMs).toBeGreaterThan(0);
      expect(side.modules).toBeGreaterThan(50);
    }
    expect(r.afterstop.modules).toBeLessThan(r.bareNodeSdk.modules);
  }, 120_000);
});
