import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** cancel-depth-by-framework.sql: the scorecard per framework across services and agents, METRICS.md §8. */
describe('cancel-depth-by-framework', () => {
  it('adds up the services of one framework; runs not cancelled are not scored', async () => {
    const t = traces();
    const mk = (service: string, framework: string) => {
      const r = t.run({ service, framework, startMs: 0, endMs: 5000, outcome: 'cancelled' });
      r.cancelRequest(100);
      r.ack(150);
      return r;
    };
    mk('a', 'vercel-ai').model({ startMs: 300, endMs: 400, model: 'gpt-4o' }); // 0
    mk('b', 'vercel-ai'); // 4
    mk('c', 'vercel-ai'); // 4
    mk('a', 'langgraph').model({ startMs: 0, endMs: 1500, model: 'gpt-4o' }); // 1
    t.run({ service: 'a', framework: 'langgraph', startMs: 0, endMs: 100 });
    const s = await analyzeTraces(t);
    const rows = await s.rows('cancel-depth-by-framework');
    s.close();
    expect(rows.map((r) => [r['framework'], r['cancelled_runs'], r['depth_0'], r['depth_1'], r['depth_2'], r['depth_3'], r['depth_4']])).toEqual([
      ['langgraph', 1, 0, 1, 0, 0, 0],
      ['vercel-ai', 3, 1, 0, 0, 0, 2],
    ]);
  });
});
