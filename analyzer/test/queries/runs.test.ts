import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** runs.sql: runs, cancelled runs and unended runs per group and in total, and the runs beside frameworks afterstop does not instrument. */
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
      { service: 'a', agent: 'x', framework: 'manual', total: false, runs: 3, cancelled_runs: 2, cancelled_runs_inferred: 0, unended_runs: 1, deadline_cancels: 0, uninstrumented_runs: 0, uninstrumented: null },
      { service: 'b', agent: 'y', framework: 'langgraph', total: false, runs: 4, cancelled_runs: 3, cancelled_runs_inferred: 0, unended_runs: 0, deadline_cancels: 1, uninstrumented_runs: 0, uninstrumented: null },
      { service: null, agent: null, framework: null, total: true, runs: 7, cancelled_runs: 5, cancelled_runs_inferred: 0, unended_runs: 1, deadline_cancels: 1, uninstrumented_runs: 0, uninstrumented: null },
    ]);
  });

  it('runs beside frameworks afterstop does not instrument (afterstop.run.uninstrumented): counted, and the packages named once each, sorted, per group and in total', async () => {
    const t = traces();
    t.run({ service: 'a', startMs: 0, endMs: 10, attrs: { 'afterstop.run.uninstrumented': '@google/adk' } });
    t.run({ service: 'a', startMs: 20, endMs: 30, attrs: { 'afterstop.run.uninstrumented': '@google/adk,@modelcontextprotocol/sdk' } });
    t.run({ service: 'a', startMs: 40, endMs: 50 });
    t.run({ service: 'b', startMs: 0, endMs: 10, attrs: { 'afterstop.run.uninstrumented': '@ai-sdk/mcp' } });
    const s = await analyzeTraces(t);
    const rows = (await s.rows('runs')).map((r) => [r.service, r.runs, r.uninstrumented_runs, r.uninstrumented]);
    s.close();
    expect(rows).toEqual([
      ['a', 3, 2, '@google/adk,@modelcontextprotocol/sdk'],
      ['b', 1, 1, '@ai-sdk/mcp'],
      [null, 4, 3, '@ai-sdk/mcp,@google/adk,@modelcontextprotocol/sdk'],
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
    expect(await s.rows('runs')).toEqual([
      { service: null, agent: null, framework: null, total: true, runs: 0, cancelled_runs: 0, cancelled_runs_inferred: 0, unended_runs: 0, deadline_cancels: 0, uninstrumented_runs: 0, uninstrumented: null },
    ]);
    s.close();
  });
});
