import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../helpers/trace-builder.js';

/** cancel-depth.sql: how many cancelled runs reached each depth, per group and in total, METRICS.md §8. */
describe('cancel-depth', () => {
  it('a scorecard per group; runs not cancelled are not scored', async () => {
    const t = traces();
    const mk = (service: string, framework: string) => {
      const r = t.run({ service, framework, startMs: 0, endMs: 5000, outcome: 'cancelled' });
      r.cancelRequest(100); r.ack(150);
      return r;
    };
    mk('a', 'vercel-ai').model({ startMs: 300, endMs: 400, model: 'gpt-4o' });   // 0
    mk('a', 'vercel-ai').tool({ name: 'x', callId: 'o', startMs: 50 });          // 2: orphan tool call
    mk('a', 'vercel-ai');                                                         // 4
    const g = mk('b', 'langgraph');                                               // 3: ghost commit
    g.tool({ name: 'x', callId: 'g', startMs: 50, endMs: 200 }); g.commit({ callId: 'g', atMs: 180 });
    mk('b', 'langgraph').model({ startMs: 0, endMs: 1500, model: 'gpt-4o' });     // 1
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
});
