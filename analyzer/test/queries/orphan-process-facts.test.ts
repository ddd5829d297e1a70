import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, traces } from '../../../test/helpers/trace-builder.js';

/** orphan-process-facts.sql: the afterstop.process.orphan markers of each run (the store's orphan_process_facts). */
describe('orphan-process-facts', () => {
  it('keeps each orphan marker with its pid; no other marker', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 1000 });
    r.processOrphan(1500, 4242);
    r.marker('afterstop.process.spawn', 10, { 'process.pid': 4242 });
    const a = await analyzeTraces(t);
    const rows = await a.table('orphan_process_facts');
    a.close();
    expect(rows.map((o) => [o['run_id'], relMs(o['start_ns']), o['pid']])).toEqual([[r.spanId, 1500, '4242']]);
  });

  it('goes with its run when the retention forgets it (prune-facts)', async () => {
    const t = traces();
    const r1 = t.run({ startMs: 0, endMs: 900 });
    r1.processOrphan(950, 1);
    const r2 = t.run({ startMs: 1000, endMs: 1900 });
    r2.processOrphan(1950, 2);
    const a = await analyzeTraces(t);
    expect((await a.table('orphan_process_facts', 'ORDER BY pid')).map((o) => o['pid'])).toEqual(['1', '2']);
    await a.forgetRun(r1);
    expect((await a.table('orphan_process_facts')).map((o) => o['pid'])).toEqual(['2']);
    a.close();
  });
});
