import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** orphan-tool-calls.sql: orphan (lost, not repaired), repaired, late per group and in total, METRICS.md §3. */
const figures = (r: Record<string, unknown>) => [r['orphan_tool_calls'], r['repaired_tool_calls'], r['late_results']];

describe('orphan-tool-calls', () => {
  it('a repair covering only some calls; a late result counts as late whether or not it was repaired', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c', service: 'a', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(150);
    r.tool({ name: 'x', callId: 'never', startMs: 50 });
    r.tool({ name: 'x', callId: 'late-repaired', startMs: 50, endMs: 400, result: 'late' });
    r.tool({ name: 'x', callId: 'late', startMs: 50, endMs: 300 });
    r.tool({ name: 'x', callId: 'fine', startMs: 10, endMs: 60, result: 'delivered' });
    t.run({ conversation: 'c', service: 'a', startMs: 1000, endMs: 1500 }).repair(1000, ['late-repaired']);
    const other = t.run({ service: 'b', startMs: 0, endMs: 900 }); // not cancelled
    other.tool({ name: 'x', callId: 'z', startMs: 50 });
    const s = await analyzeTraces(t);
    const rows = await s.rows('orphan-tool-calls');
    s.close();
    expect(rows.map((x) => [x['service'], x['total'], ...figures(x)])).toEqual([
      ['a', false, 2, 1, 2],
      ['b', false, 0, 0, 0],
      [null, true, 2, 1, 2],
    ]);
  });

  it('only runs in the window: an orphan of a run that starts after it is not counted, nor is its group listed', async () => {
    const t = traces();
    for (const [service, startMs] of [
      ['a', 0],
      ['a', 5000],
      ['later', 6000],
    ] as const) {
      const r = t.run({ service, startMs, endMs: startMs + 900, outcome: 'cancelled' });
      r.cancelRequest(startMs + 100);
      r.ack(startMs + 150);
      r.tool({ name: 'x', callId: `never-${startMs}`, startMs: startMs + 50 });
    }
    const s = await analyzeTraces(t, { untilMs: 4000 });
    const rows = await s.rows('orphan-tool-calls');
    s.close();
    expect(rows.map((x) => [x['service'], x['total'], ...figures(x)])).toEqual([
      ['a', false, 1, 0, 0],
      [null, true, 1, 0, 0],
    ]);
  });

  it('a framework step (afterstop.tool.kind = step) is never an orphan, ended late or never', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(150);
    r.tool({ name: 'charge', callId: 'node-late', startMs: 50, endMs: 400, result: 'dropped', attrs: { 'afterstop.tool.kind': 'step' } });
    r.tool({ name: 'send_email', callId: 'tool-late', startMs: 50, endMs: 400, result: 'dropped' });
    const s = await analyzeTraces(t);
    const total = await s.total('orphan-tool-calls');
    s.close();
    expect(figures(total)).toEqual([1, 0, 2]);
  });

  it('an unended run (no run span) cancelled with a tool still hanging: one orphan', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, exported: false });
    r.cancelRequest(100);
    r.tool({ name: 'x', callId: 'a', startMs: 50 });
    const s = await analyzeTraces(t);
    expect(figures(await s.total('orphan-tool-calls'))).toEqual([1, 0, 0]);
    s.close();
  });

  // METRICS.md §3: a tool call is also known from "a tool-call id in a model span's output".
  it('a tool call known only from the model span’s output (no tool span, no marker) is an orphan', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(400);
    r.model({ startMs: 0, endMs: 300, model: 'gpt-4o', attrs: { 'gen_ai.completion.0.tool_calls.0.id': 'call_x', 'gen_ai.completion.0.tool_calls.0.name': 'x' } });
    const s = await analyzeTraces(t);
    expect(figures(await s.total('orphan-tool-calls'))).toEqual([1, 0, 0]);
    s.close();
  });
});
