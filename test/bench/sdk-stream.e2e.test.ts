import { describe, expect, it } from 'vitest';
import { benchSdkStream } from '../../bench/sdk-stream.js';

// `npm run bench` reports the figure; this checks, on a small run, that both sides stream every chunk and are timed.
describe('the SDK stream benchmark', () => {
  it.each(['openai', 'ai-sdk'] as const)('times the same streamed calls bare and under afterstop/register (%s)', async (client) => {
    const r = await benchSdkStream(client, 40, 2, 1);
    expect(r.client).toBe(client);
    expect(r.bareMsPerCall).toBeGreaterThan(0);
    expect(r.instrumentedMsPerCall).toBeGreaterThan(0);
    expect(r.extra).toBeCloseTo(r.instrumentedMsPerCall / r.bareMsPerCall - 1, 9);
    expect(r.bareCpuMsPerCall).toBeGreaterThan(0);
    expect(r.cpuExtra).toBeCloseTo(r.instrumentedCpuMsPerCall / r.bareCpuMsPerCall - 1, 9);
  });
});
