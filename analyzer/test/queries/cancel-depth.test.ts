import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** cancel-depth.sql: how many cancelled runs reached each depth, per group and in total, METRICS.md §8. */
describe('cancel-depth', () => {
  it('a scorecard per group; runs not cancelled are not scored', async () => {
    const t = traces();
    const mk = (service: string, framework: string) => {
      const r = t.run({ service, framework, startMs: 0, endMs: 5000, outcome: 'cancelled' });
      r.cancelRequest(100);
      r.ack(150);
      return r;
    };
    mk('a', 'vercel-ai').model({ startMs: 300, endMs: 400, model: 'gpt-4o' }); // 0
    mk('a', 'vercel-ai').tool({ name: 'x', callId: 'o', startMs: 50 }); // 2: orphan tool call
    mk('a', 'vercel-ai'); // 4
    const g = mk('b', 'langgraph'); // 3: ghost commit
    g.tool({ name: 'x', callId: 'g', startMs: 50, endMs: 200 });
    g.commit({ callId: 'g', atMs: 180 });
    mk('b', 'langgraph').model({ startMs: 0, endMs: 1500, model: 'gpt-4o' }); // 1
    t.run({ service: 'b', framework: 'langgraph', startMs: 0, endMs: 100 });
    const s = await analyzeTraces(t);
    const rows = await s.rows('cancel-depth');
    s.close();
    expect(rows.map((r) => [r['service'], r['framework'], r['total'], r['depth_0'], r['depth_1'], r['depth_2'], r['depth_3'], r['depth_4']])).toEqual([
      ['a', 'vercel-ai', false, 1, 0, 1, 0, 1],
      ['b', 'langgraph', false, 0, 1, 0, 1, 0],
      [null, null, true, 1, 1, 1, 1, 1],
    ]);
  });

  it('only runs in the window: a cancelled run that starts after it is not scored, nor is its group listed; a group with no cancelled run gets zeros', async () => {
    const t = traces();
    for (const [service, startMs] of [
      ['a', 0],
      ['a', 5000],
      ['later', 6000],
    ] as const) {
      const r = t.run({ service, framework: 'vercel-ai', startMs, endMs: startMs + 900, outcome: 'cancelled' });
      r.cancelRequest(startMs + 100);
      r.ack(startMs + 150);
    }
    t.run({ service: 'calm', framework: 'vercel-ai', startMs: 0, endMs: 100 });
    const s = await analyzeTraces(t, { untilMs: 4000 });
    const rows = await s.rows('cancel-depth');
    const byFramework = await s.rows('cancel-depth-by-framework');
    s.close();
    expect(rows.map((r) => [r['service'], r['total'], r['depth_0'], r['depth_4']])).toEqual([
      ['a', false, 0, 1],
      ['calm', false, 0, 0],
      [null, true, 0, 1],
    ]);
    expect(byFramework.map((r) => [r['framework'], r['cancelled_runs'], r['depth_4']])).toEqual([['vercel-ai', 1, 1]]);
  });
});
