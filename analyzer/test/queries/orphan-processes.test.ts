import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** orphan-processes.sql: afterstop.process.orphan markers per group and in total, METRICS.md §9. */
describe('orphan-processes', () => {
  it('counts orphan markers (not spawns) of the runs in the window, per group', async () => {
    const t = traces();
    const a = t.run({ service: 'a', startMs: 0, endMs: 900 });
    a.marker('afterstop.process.spawn', 10, { 'process.pid': 1, 'process.executable.name': 'node' });
    a.processOrphan(5000, 1);
    a.processOrphan(5000, 2);
    t.run({ service: 'b', startMs: 0, endMs: 900, outcome: 'cancelled' }).processOrphan(6000);
    t.run({ service: 'b', startMs: 0, exported: false }).processOrphan(7000); // unended run
    t.run({ service: 'b', startMs: 20_000, endMs: 20_900 }).processOrphan(25_000); // outside the window
    const s = await analyzeTraces(t, { untilMs: 10_000 });
    const rows = await s.rows('orphan-processes');
    s.close();
    expect(rows.map((r) => [r['service'], r['total'], r['orphan_processes']])).toEqual([
      ['a', false, 2],
      ['b', false, 2],
      [null, true, 4],
    ]);
  });
});
