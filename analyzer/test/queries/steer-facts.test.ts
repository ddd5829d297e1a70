import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** steer-facts.sql: one row per steer id and scope (the store's steer_facts), METRICS.md §7. */
describe('steer-facts', () => {
  it('inject_ms, violations, drops (never injected, or explicitly dropped), across the runs of a conversation', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c', startMs: 0, endMs: 1000 });
    r.steerEnqueue('s1', 100);
    r.steerInject('s1', 400.5);
    r.steerEnqueue('s2', 500);
    r.steerInject('s2', 550, 'inside_tool_batch');
    r.steerEnqueue('s3', 600);
    r.steerEnqueue('s4', 700);
    r.steerDrop('s4', 750);
    r.steerEnqueue('s5', 800);
    const next = t.run({ conversation: 'c', startMs: 2000, endMs: 3000 });
    next.steerInject('s5', 2000);
    const other = t.run({ conversation: 'd', startMs: 0, endMs: 1000 });
    other.steerEnqueue('s1', 100);
    const a = await analyzeTraces(t);
    const rows = await a.table('steer_facts', 'ORDER BY scope, steer_id');
    a.close();
    expect(rows.map((s) => [s['scope'], s['steer_id'], s['run_id'], s['inject_ms'], s['position'], s['dropped'], s['violation']])).toEqual([
      ['c', 's1', r.spanId, 300.5, 'between_steps', false, false],
      ['c', 's2', r.spanId, 50, 'inside_tool_batch', false, true],
      ['c', 's3', r.spanId, null, null, true, null],
      ['c', 's4', r.spanId, null, null, true, null],
      ['c', 's5', r.spanId, 1200, 'between_steps', false, false],
      ['d', 's1', other.spanId, null, null, true, null],
    ]);
  });

  it('the enqueuing run is the first enqueue’s, even after another run’s earlier mark; without an enqueue, the first mark’s', async () => {
    const t = traces();
    const early = t.run({ conversation: 'c', startMs: 0, endMs: 1000 });
    early.steerInject('s1', 100);
    early.steerInject('s2', 300);
    const late = t.run({ conversation: 'c', startMs: 2000, endMs: 3000 });
    late.steerEnqueue('s1', 2100);
    late.steerInject('s2', 2200);
    const a = await analyzeTraces(t);
    const rows = await a.table('steer_facts', 'ORDER BY steer_id');
    a.close();
    expect(rows.map((s) => [s['steer_id'], s['run_id'], s['trace_id'], s['dropped']])).toEqual([
      ['s1', late.spanId, late.traceId, false],
      ['s2', early.spanId, early.traceId, false],
    ]);
  });

  it('a steer explicitly dropped after its inject is dropped', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 1000 });
    r.steerEnqueue('s', 100);
    r.steerInject('s', 200);
    r.steerDrop('s', 300);
    const a = await analyzeTraces(t);
    const [row] = await a.table('steer_facts');
    a.close();
    expect(row).toMatchObject({ scope: `run:${r.traceId}:${r.spanId}`, dropped: true, inject_ms: 100 });
  });
});
