import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../helpers/trace-builder.js';

/** runs.sql: runs, cancelled runs and unended runs per group and in total. */
describe('runs', () => {
  it('two services: two group rows and a total row equal to their sum', async () => {
    const t = traces();
    t.run({ service: 'a', agent: 'x', startMs: 0, endMs: 100, outcome: 'completed' });
    t.run({ service: 'a', agent: 'x', startMs: 0, endMs: 100, outcome: 'cancelled' });
    t.run({ service: 'a', agent: 'x', startMs: 0, exported: false }).cancelRequest(50);
    t.run({ service: 'b', agent: 'y', framework: 'langgraph', startMs: 0, endMs: 100 }).cancelRequest(50);
    t.run({ service: 'b', agent: 'y', framework: 'langgraph', startMs: 0, endMs: 100 });
    // A deadline's cancel (source timeout); a run whose first request was the user's and a later one a timeout is not.
    t.run({ service: 'b', agent: 'y', framework: 'langgraph', startMs: 0, endMs: 100 }).cancelRequest(60, 'd', 'timeout');
    const twice = t.run({ service: 'b', agent: 'y', framework: 'langgraph', startMs: 0, endMs: 100 });
    twice.cancelRequest(30, 'u', 'user');
    twice.cancelRequest(70, 'd2', 'timeout');
    const s = await analyzeTraces(t);
    const rows = await s.rows('runs');
    s.close();
    expect(rows).toEqual([
      { service: 'a', agent: 'x', framework: 'manual', total: false, runs: 3, cancelled_runs: 2, cancelled_runs_inferred: 0, unended_runs: 1, deadline_cancels: 0 },
      { service: 'b', agent: 'y', framework: 'langgraph', total: false, runs: 4, cancelled_runs: 3, cancelled_runs_inferred: 0, unended_runs: 0, deadline_cancels: 1 },
      { service: null, agent: null, framework: null, total: true, runs: 7, cancelled_runs: 5, cancelled_runs_inferred: 0, unended_runs: 1, deadline_cancels: 1 },
    ]);
  });

  it('counts only runs that start in the window', async () => {
    const t = traces();
    for (const startMs of [0, 1000, 2000]) t.run({ startMs, endMs: startMs + 10 });
    const s = await analyzeTraces(t, { sinceMs: 500, untilMs: 2000 });
    expect(await s.total('runs')).toMatchObject({ runs: 1 });
    s.close();
  });

  it('no run at all: only the total row, with zeros', async () => {
    const s = await analyzeTraces(traces());
    expect(await s.rows('runs')).toEqual([{ service: null, agent: null, framework: null, total: true, runs: 0, cancelled_runs: 0, cancelled_runs_inferred: 0, unended_runs: 0, deadline_cancels: 0 }]);
    s.close();
  });
});
