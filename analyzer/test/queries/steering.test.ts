import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** steering.sql: inject latency (nearest rank), drops and violations per group of the enqueuing run, METRICS.md §7. */
describe('steering', () => {
  it('inject_ms percentiles, dropped (never injected or explicitly dropped), violations; groups and total', async () => {
    const t = traces();
    const a = t.run({ service: 'a', conversation: 'c', startMs: 0, endMs: 5000 });
    [10, 40, 20, 30].forEach((ms, i) => {
      a.steerEnqueue(`s${i}`, 100 * i);
      a.steerInject(`s${i}`, 100 * i + ms, i === 3 ? 'inside_tool_batch' : 'between_steps');
    });
    a.steerEnqueue('never', 900);
    a.steerEnqueue('dropped', 950);
    a.steerDrop('dropped', 960);
    const b = t.run({ service: 'b', conversation: 'd', startMs: 0, endMs: 5000 });
    b.steerEnqueue('x', 0);
    b.steerInject('x', 100.25);
    const s = await analyzeTraces(t);
    const rows = await s.rows('steering');
    s.close();
    expect(rows.map((r) => [r['service'], r['total'], r['inject_count'], r['inject_p50'], r['inject_p95'], r['inject_p99'], r['inject_max'], r['dropped'], r['violations']])).toEqual([
      ['a', false, 4, 20, 40, 40, 40, 2, 1],
      ['b', false, 1, 100.25, 100.25, 100.25, 100.25, 0, 0],
      [null, true, 5, 30, 100.25, 100.25, 100.25, 2, 1],
    ]);
  });

  it('no steering: count 0 and null percentiles', async () => {
    const t = traces();
    t.run({ startMs: 0, endMs: 100 });
    const s = await analyzeTraces(t);
    expect(await s.total('steering')).toMatchObject({ inject_count: 0, inject_p50: null, inject_p95: null, inject_max: null, dropped: 0, violations: 0 });
    s.close();
  });

  it('only steers enqueued by runs in the window; a group of the window with no steer gets zeros, one outside is not listed', async () => {
    const t = traces();
    const inside = t.run({ service: 'a', conversation: 'c', startMs: 0, endMs: 900 });
    inside.steerEnqueue('s1', 100);
    inside.steerInject('s1', 130, 'inside_tool_batch');
    t.run({ service: 'quiet', conversation: 'q', startMs: 10, endMs: 900 });
    const later = t.run({ service: 'late', conversation: 'l', startMs: 6000, endMs: 6900 });
    later.steerEnqueue('s2', 6100);
    later.steerDrop('s2', 6110);
    const s = await analyzeTraces(t, { untilMs: 5000 });
    const rows = await s.rows('steering');
    s.close();
    expect(rows.map((r) => [r['service'], r['total'], r['inject_count'], r['inject_p50'], r['dropped'], r['violations']])).toEqual([
      ['a', false, 1, 30, 0, 1],
      ['quiet', false, 0, null, 0, 0],
      [null, true, 1, 30, 0, 1],
    ]);
  });
});
