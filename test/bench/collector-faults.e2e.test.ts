import { describe, expect, it } from 'vitest';
import { benchCollectorFaults, FAULTS } from '../../bench/collector-faults.js';

/**
 * The collector-faults bench runs (one short round of each side): an idle loop, the app alone, afterstop with its export
 * off, afterstop joining an SDK the app registered (spans recorded, none exported), and afterstop exporting to each
 * local collector; export off and exporting again with Node's V8 worker pool cut to one thread; each in a process of
 * its own. The figures are bench rows (docs/benchmarks.md),
 * never asserted here; only their shape, and what does not depend on the machine: a healthy collector loses
 * no span, one that answers 500 loses them.
 */
describe('bench collector-faults', () => {
  it('measures each side past its 100th run: pauses, CPU a run, and the spread of paired rounds', async () => {
    const r = await benchCollectorFaults(160, 1, 1);
    for (const side of [r.idle, r.bare, r.exportOff, r.recorded, r.oneWorker.exportOff, r.oneWorker.exporting, ...FAULTS.map((f) => r.byFault[f])]) {
      expect(side.msPerRun).toBeGreaterThan(0);
      expect(side.steadyCpuMsPerRun).toBeGreaterThan(0);
      expect(Number.isFinite(side.steadyCpuMsPerRun)).toBe(true);
      expect(side.steadyMaxLoopDelayMs).toBeGreaterThan(0);
    }
    expect(r.byFault.healthy.dropped).toBe(0);
    expect(r.oneWorker.exporting.dropped).toBe(0);
    // The recorded side joins the app's SDK and exports nothing of its own: no queue, nothing dropped.
    expect(r.recorded.dropped).toBe(0);
    expect(r.byFault['500'].dropped).toBeGreaterThan(0);
    for (const q of Object.values(r.steadyPauseSpread)) {
      expect(q.low).toBeGreaterThan(0);
      expect(q.low).toBeLessThanOrEqual(q.high);
    }
    // One round: its one paired ratio is both quartiles.
    expect(r.steadyPauseSpread.exporting.low).toBeCloseTo(r.byFault.healthy.steadyMaxLoopDelayMs / r.bare.steadyMaxLoopDelayMs, 10);
    expect(r.steadyPauseSpread.exportOffOneWorker.low).toBeCloseTo(r.oneWorker.exportOff.steadyMaxLoopDelayMs / r.bare.steadyMaxLoopDelayMs, 10);
    expect(r.steadyPauseSpread.bareOverIdle.low).toBeCloseTo(r.bare.steadyMaxLoopDelayMs / r.idle.steadyMaxLoopDelayMs, 10);
  }, 180_000);
});
