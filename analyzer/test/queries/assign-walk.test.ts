import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** assign-walk.sql: from each span of assign_spans not naming its run, up its parents to the nearest run span or the top. */
describe('assign-walk', () => {
  it('walks each span up to its nearest run span, a row per ancestor with its depth, and stops there', async () => {
    const t = traces();
    // A foreign trace: a root, an invoke_agent span under it, and a tool call two levels below that.
    const root = t.run({ name: 'POST /chat', stamp: false, startMs: 0, endMs: 900 });
    const agent = root.span({ name: 'invoke_agent helper', startMs: 10, endMs: 800, attrs: { 'gen_ai.operation.name': 'invoke_agent' } });
    const step = root.span({ name: 'step', startMs: 20, endMs: 700, parent: agent });
    const call = root.span({ name: 'execute_tool pay', startMs: 30, endMs: 600, parent: step, attrs: { 'gen_ai.operation.name': 'execute_tool' } });
    const a = await analyzeTraces(t);
    const walk = await a.table('assign_walk', 'ORDER BY span_id, depth');
    a.close();
    const of = (span: string) => walk.filter((w) => w['span_id'] === span).map((w) => [w['ancestor'], Number(w['depth']), w['at_run']]);
    expect(of(call)).toEqual([
      [call, 0, false],
      [step, 1, false],
      [agent, 2, true],
    ]);
    // A run span starts at itself and goes no further; the root, above every run span, is its own top.
    expect(of(agent)).toEqual([[agent, 0, true]]);
    expect(of(root.spanId)).toEqual([[root.spanId, 0, false]]);
  });
});
