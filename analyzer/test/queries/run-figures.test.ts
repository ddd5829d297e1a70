import { listValue } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces } from '../../../test/helpers/trace-builder.js';

/** run-figures.sql: METRICS.md's figures for each given run, with what held its cancel depth. */
describe('run-figures', () => {
  it('depth and what held it, ghosts, orphans and why, tokens after Stop, and the next run that failed after the Stop', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(150);
    r.model({ startMs: 10, endMs: 300, model: 'gpt-4o', input: 100, output: 50, afterCancel: 20 });
    r.tool({ name: 'send_email', callId: 'm', startMs: 50, endMs: 400, result: 'late', effect: 'irreversible' });
    r.commit({ callId: 'm', atMs: 300 });
    r.tool({ name: 'book', callId: 'b', startMs: 60, effect: 'reversible' });
    const n = t.run({ conversation: 'c', startMs: 1000, endMs: 1900, outcome: 'failed' });
    n.model({ startMs: 1000, endMs: 1100, model: 'gpt-4o', status: { code: 'error', message: '400 No tool output found for function call m.' } });
    const loop = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    loop.cancelRequest(100);
    loop.model({ startMs: 200, endMs: 300, model: 'gpt-4o', input: 10, output: 5 });
    const quiet = t.run({ startMs: 0, endMs: 100, outcome: 'completed' });
    const s = await analyzeTraces(t, { budgetMs: 1000 });
    const key = (x: { traceId: string; spanId: string }) => `${x.traceId}:${x.spanId}`;
    const rows = await s.rows('run-figures', { runs: listValue([key(r), key(n), key(loop), key(quiet)]) });
    s.close();
    const of = (x: { spanId: string }) => rows.find((f) => f['run_id'] === x.spanId)!;
    expect(of(r)).toMatchObject({
      ack_ms: 50,
      depth: 2,
      loop_ok: true,
      model_ok: true,
      tools_ok: false,
      slow_tool: 'book',
      slow_tool_ms: null,
      tools_at_stop: 2,
      ghost_commits: 1,
      ghost_possible: 1,
      ghost_inferred: 0,
      orphans: 2,
      orphans_unended: 1,
      orphans_result: 1,
      orphans_requested: 0,
      output_after: 20,
      observed_calls: 1,
      started_after: 0,
      next_run_id: n.spanId,
      error_cause: 'orphan_tool_call_rejected',
      previous_run_id: null,
    });
    expect(of(r)['error_ns']).toBe(ns(1100));
    expect(of(n)).toMatchObject({ previous_run_id: r.spanId, depth: null, next_run_id: null, orphans: 0 });
    expect(of(loop)).toMatchObject({ depth: 0, loop_ok: false, work_after: 1, started_after: 1, input_after: 10, output_after: 5, ack_ms: null });
    expect(of(quiet)).toMatchObject({ depth: null, work_after: 0, ghost_commits: 0, input_after: 0, cost_usd: 0 });
  });

  it('level 2 names how long the model call in flight at Stop went on', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 5000, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.model({ startMs: 10, endMs: 2600, model: 'gpt-4o', input: 10, output: 50 });
    const s = await analyzeTraces(t, { budgetMs: 1000 });
    const [row] = await s.rows('run-figures', { runs: listValue([`${r.traceId}:${r.spanId}`]) });
    s.close();
    expect(row).toMatchObject({ depth: 1, loop_ok: true, model_ok: false, model_over_ms: 2500 });
  });
});
