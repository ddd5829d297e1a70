import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces, type Traces } from '../../../test/helpers/trace-builder.js';

/** ghost-commits.sql: observed, compensated, inferred and alarming ghost commits per group and in total, METRICS.md §2. */
const cancelledRun = (t: Traces, service: string, startMs = 0) => {
  const r = t.run({ service, startMs, endMs: startMs + 900, outcome: 'cancelled' });
  r.cancelRequest(startMs + 100);
  return r;
};

describe('ghost-commits', () => {
  it('counts per group; irreversible and unknown effects alarm; compensated ones are still ghost commits', async () => {
    const t = traces();
    const a = cancelledRun(t, 'a');
    for (const [id, effect] of [
      ['1', 'irreversible'],
      ['2', undefined],
      ['3', 'reversible'],
      ['4', 'read'],
    ] as const) {
      a.tool({ name: 'x', callId: id, startMs: 50, endMs: 400, ...(effect ? { effect } : {}) });
      a.commit({ callId: id, atMs: 300 });
    }
    a.compensate({ callId: '3', atMs: 600, outcome: 'succeeded' });
    a.commit({ callId: '1', atMs: 90 }); // before C
    const b = cancelledRun(t, 'b');
    b.tool({ name: 'y', callId: '5', startMs: 50, endMs: 400, startMarker: false, effect: 'irreversible' }); // inferred
    t.run({ service: 'c', startMs: 0, endMs: 900 }).tool({ name: 'z', callId: '6', startMs: 50, endMs: 400 });
    const s = await analyzeTraces(t);
    const rows = await s.rows('ghost-commits');
    s.close();
    expect(rows.map((r) => [r['service'], r['total'], r['ghost_commits'], r['ghost_commits_compensated'], r['ghost_commits_inferred'], r['ghost_commits_alarming']])).toEqual([
      ['a', false, 4, 1, 0, 2],
      ['b', false, 0, 0, 1, 0],
      ['c', false, 0, 0, 0, 0],
      [null, true, 4, 1, 1, 2],
    ]);
  });

  it('a compensation that failed, or names another call, does not compensate', async () => {
    const t = traces();
    const r = cancelledRun(t, 'a');
    r.tool({ name: 'mail', callId: 'm1', startMs: 50, endMs: 400, effect: 'irreversible' });
    r.commit({ callId: 'm1', atMs: 300 });
    r.compensate({ callId: 'm1', atMs: 500, outcome: 'failed' });
    r.compensate({ callId: 'm2', atMs: 500, outcome: 'succeeded' });
    const s = await analyzeTraces(t);
    expect(await s.total('ghost-commits')).toMatchObject({ ghost_commits: 1, ghost_commits_compensated: 0, ghost_commits_alarming: 1 });
    s.close();
  });

  it('only runs in the window', async () => {
    const t = traces();
    for (const startMs of [0, 5000]) {
      const r = cancelledRun(t, 'a', startMs);
      r.tool({ name: 'x', callId: `c${startMs}`, startMs: startMs + 50, endMs: startMs + 400 });
      r.commit({ callId: `c${startMs}`, atMs: startMs + 300 });
    }
    const s = await analyzeTraces(t, { sinceMs: 1000 });
    expect(await s.total('ghost-commits')).toMatchObject({ ghost_commits: 1 });
    s.close();
  });
});
