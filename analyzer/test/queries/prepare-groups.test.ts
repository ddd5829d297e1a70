import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** prepare-groups.sql: the groups of the window's runs, once each (report_groups), which the aggregates list with zeros. */
describe('prepare-groups', () => {
  it('one row per service, agent and framework of a run in the window; NULL is a group of its own; runs outside are not', async () => {
    const t = traces();
    t.run({ service: 'a', agent: 'x', startMs: 0, endMs: 100 });
    t.run({ service: 'a', agent: 'x', startMs: 200, endMs: 300, outcome: 'cancelled' });
    t.run({ service: 'a', agent: 'y', startMs: 400, endMs: 500 });
    // A foreign run: no agent name and no framework.
    t.run({ service: 'b', startMs: 600, endMs: 700, stamp: false, name: 'invoke_agent' });
    t.run({ service: 'late', agent: 'x', startMs: 5000, endMs: 5100 });
    const a = await analyzeTraces(t, { untilMs: 4000 });
    const groups = await a.table('report_groups', 'ORDER BY service, agent, framework');
    a.close();
    expect(groups.map((g) => [g['service'], g['agent'], g['framework']])).toEqual([
      ['a', 'x', 'manual'],
      ['a', 'y', 'manual'],
      ['b', null, null],
    ]);
  });
});
