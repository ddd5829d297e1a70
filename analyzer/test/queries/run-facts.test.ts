import { describe, expect, it } from 'vitest';
import { query } from '../../queries.js';
import { analyzeTraces, ns, traces } from '../../../test/helpers/trace-builder.js';

/** run-facts.sql (kept at ingest) and prepare-runs.sql (the window over it): one row per run (report_runs) with C, A, the settle marker and the window. */
const runs = async (t: ReturnType<typeof traces>, o = {}) => {
  const a = await analyzeTraces(t, o);
  const rows = await a.table('report_runs', 'ORDER BY start_ns');
  a.close();
  return rows;
};

describe('prepare-runs', () => {
  it('C is the first cancel request, A the first ack; group and conversation from the run span', async () => {
    const t = traces();
    const r = t.run({ conversation: 'c1', agent: 'ag', framework: 'fw', service: 'svc', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(300, 'k2');
    r.cancelRequest(100);
    r.ack(400);
    r.ack(150);
    r.settle(500);
    const [row] = await runs(t);
    expect(row).toMatchObject({
      run_id: r.spanId,
      trace_id: r.traceId,
      service: 'svc',
      agent: 'ag',
      framework: 'fw',
      conversation_id: 'c1',
      unended: false,
      outcome: 'cancelled',
      cancelled: true,
      has_request: true,
      in_window: true,
    });
    expect([row!['start_ns'], row!['end_ns'], row!['c_ns'], row!['a_ns'], row!['settle_marker_ns']]).toEqual([ns(0), ns(900), ns(100), ns(150), ns(500)]);
  });

  it('cancelled by outcome alone: C is the run’s end; a completed run is not cancelled', async () => {
    const t = traces();
    t.run({ startMs: 0, endMs: 700, outcome: 'cancelled' });
    t.run({ startMs: 1000, endMs: 2000, outcome: 'completed' });
    const [byOutcome, completed] = await runs(t);
    expect(byOutcome).toMatchObject({ cancelled: true, has_request: false, c_ns: ns(700), a_ns: null });
    expect(completed).toMatchObject({ cancelled: false, c_ns: null });
  });

  it('an unended run (no run span): built from its markers, end unknown, cancelled by its request', async () => {
    const t = traces();
    const r = t.run({ service: 'svc', agent: 'ag', conversation: 'c9', startMs: 0, exported: false });
    r.model({ startMs: 20, endMs: 80, model: 'gpt-4o' });
    r.cancelRequest(100);
    const [row] = await runs(t);
    expect(row).toMatchObject({ run_id: r.spanId, service: 'svc', agent: 'ag', conversation_id: 'c9', end_ns: null, unended: true, outcome: null, cancelled: true, c_ns: ns(100) });
    expect(row!['start_ns']).toBe(ns(20));
  });

  it('in_window: start ≥ since and < until; runs outside the window stay in the table', async () => {
    const t = traces();
    for (const startMs of [0, 1000, 2000, 3000]) t.run({ startMs, endMs: startMs + 500 });
    const rows = await runs(t, { sinceMs: 1000, untilMs: 3000 });
    expect(rows.map((r) => r['in_window'])).toEqual([false, true, true, false]);
    expect((await runs(t, { sinceMs: 2500 })).map((r) => r['in_window'])).toEqual([false, false, false, true]);
  });

  it('a second report on the same session takes its own window, an open end replacing a bound (DuckDB reads it from session variables)', async () => {
    const t = traces();
    for (const startMs of [0, 1000, 2000]) t.run({ startMs, endMs: startMs + 500 });
    const a = await analyzeTraces(t, { sinceMs: 1000, untilMs: 2000 });
    try {
      const inWindow = async () => (await a.table('report_runs', 'ORDER BY start_ns')).map((r) => r['in_window']);
      expect(await inWindow()).toEqual([false, true, false]);
      await a.store.run(query('prepare-runs'), { since_ns: null, until_ns: ns(1000) });
      expect(await inWindow()).toEqual([true, false, false]);
      await a.store.run(query('prepare-runs'), { since_ns: null, until_ns: null });
      expect(await inWindow()).toEqual([true, true, true]);
    } finally {
      a.close();
    }
  });

  // METRICS.md (intro): a run is cancelled when (inferred) a foreign trace shows an abort;
  // C = the end of the first span whose status or exception names an abort or cancel.
  it('infers a cancel from an abort in a foreign trace (no markers, no outcome)', async () => {
    const t = traces();
    const r = t.run({ name: 'ai.streamText', stamp: false, startMs: 0, endMs: 400 });
    r.model({ startMs: 0, endMs: 300, model: 'gpt-4o', status: 'error', exceptions: [{ type: 'AbortError', message: 'This operation was aborted' }] });
    const [row] = await runs(t);
    expect(row).toMatchObject({ run_id: r.spanId, cancelled: true, c_ns: ns(300) });
  });

  // METRICS.md (intro): the root is the run unless it is plainly not agent work (an HTTP span, a create_agent span).
  it('an HTTP server root or a create_agent span alone is not a run', async () => {
    const t = traces();
    t.run({ name: 'GET /api/chat', stamp: false, startMs: 0, endMs: 100, attrs: { 'http.request.method': 'GET', 'http.route': '/api/chat' } });
    t.run({ name: 'create_agent support', stamp: false, startMs: 0, endMs: 10, attrs: { 'gen_ai.operation.name': 'create_agent' } });
    expect(await runs(t)).toEqual([]);
  });
});
