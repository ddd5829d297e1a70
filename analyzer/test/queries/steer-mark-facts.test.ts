import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, traces } from '../../../test/helpers/trace-builder.js';

/** steer-mark-facts.sql: the steering marks of each run, with their scope (the store's steer_mark_facts). */
describe('steer-mark-facts', () => {
  it('one row per mark, scoped by the conversation, else by the run; the rest of the run’s spans are not marks', async () => {
    const t = traces();
    const c = t.run({ conversation: 'c', startMs: 0, endMs: 1000 });
    c.steerEnqueue('s1', 100);
    c.steerInject('s1', 200, 'inside_tool_batch');
    c.steerDrop('s2', 300);
    c.model({ startMs: 0, endMs: 50, model: 'gpt-4o', input: 1, output: 1 });
    const alone = t.run({ startMs: 0, endMs: 1000 });
    alone.steerEnqueue('s1', 400);
    const a = await analyzeTraces(t);
    const rows = await a.table('steer_mark_facts', 'ORDER BY start_ns');
    a.close();
    expect(rows.map((m) => [m['name'], m['steer_id'], m['position'], m['scope'], m['run_id'], m['trace_id'], relMs(m['start_ns'])])).toEqual([
      ['afterstop.steer.enqueue', 's1', null, 'c', c.spanId, c.traceId, 100],
      ['afterstop.steer.inject', 's1', 'inside_tool_batch', 'c', c.spanId, c.traceId, 200],
      ['afterstop.steer.drop', 's2', null, 'c', c.spanId, c.traceId, 300],
      ['afterstop.steer.enqueue', 's1', null, `run:${alone.traceId}:${alone.spanId}`, alone.spanId, alone.traceId, 400],
    ]);
  });
});
