import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** cancel-latency.sql: ack and settle distributions (nearest rank), unacknowledged cancels, METRICS.md §1. */
const dist = (row: Record<string, unknown>, p: string) => [row[`${p}_count`], row[`${p}_p50`], row[`${p}_p95`], row[`${p}_p99`], row[`${p}_max`]];

describe('cancel-latency', () => {
  it('ack: nearest-rank percentiles over several runs (10, 20, 30, 40 → p50 20, p95 40)', async () => {
    const t = traces();
    for (const ack of [40, 10, 30, 20]) {
      const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
      r.cancelRequest(100);
      r.ack(100 + ack);
    }
    const s = await analyzeTraces(t);
    expect(dist(await s.total('cancel-latency'), 'ack')).toEqual([4, 20, 40, 40, 40]);
    s.close();
  });

  it('settle: latest end of a call started before C; the settle marker wins; nothing in flight is 0; a call that never ended is not in S', async () => {
    const t = traces();
    const inFlight = t.run({ startMs: 0, endMs: 900 });
    inFlight.cancelRequest(100);
    inFlight.ack(110);
    inFlight.model({ startMs: 0, endMs: 350, model: 'gpt-4o' });
    inFlight.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 200 });
    inFlight.model({ startMs: 150, endMs: 800, model: 'gpt-4o' }); // started after C: not in S
    const marker = t.run({ startMs: 0, endMs: 900 });
    marker.cancelRequest(100);
    marker.settle(170);
    marker.model({ startMs: 0, endMs: 600, model: 'gpt-4o' });
    const quiet = t.run({ startMs: 0, endMs: 900 });
    quiet.cancelRequest(100);
    quiet.model({ startMs: 0, endMs: 50, model: 'gpt-4o' }); // ended before C: max(0, S − C)
    const orphan = t.run({ startMs: 0, endMs: 900 });
    orphan.cancelRequest(100);
    orphan.tool({ name: 'x', callId: 'b', startMs: 50 }); // never ended
    orphan.model({ startMs: 0, endMs: 130.0004, model: 'gpt-4o' });
    const s = await analyzeTraces(t);
    const row = await s.total('cancel-latency');
    expect(dist(row, 'settle')).toEqual([4, 30, 250, 250, 250]);
    expect(row['unacknowledged_cancels']).toBe(3);
    s.close();
  });

  it('milliseconds to 3 decimals', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900 });
    r.cancelRequest(100);
    r.ack(100.1234567);
    r.model({ startMs: 0, endMs: 100.0006, model: 'gpt-4o' });
    const s = await analyzeTraces(t);
    const row = await s.total('cancel-latency');
    expect([row['ack_max'], row['settle_max']]).toEqual([0.123, 0.001]);
    s.close();
  });

  it('cancelled by outcome alone: a settle figure (C = the run’s end), not unacknowledged; no cancel: nothing', async () => {
    const t = traces();
    t.run({ startMs: 0, endMs: 700, outcome: 'cancelled' }).model({ startMs: 0, endMs: 800, model: 'gpt-4o' });
    t.run({ startMs: 0, endMs: 700, outcome: 'completed' }).model({ startMs: 0, endMs: 800, model: 'gpt-4o' });
    const s = await analyzeTraces(t);
    const row = await s.total('cancel-latency');
    expect([...dist(row, 'ack'), ...dist(row, 'settle'), row['unacknowledged_cancels']]).toEqual([0, null, null, null, null, 1, 100, 100, 100, 100, 0]);
    s.close();
  });

  // METRICS.md §1: cancel_ack_ms is "per cancelled run with both markers" (request and ack).
  it('an ack without a request marker gives no ack figure', async () => {
    const t = traces();
    t.run({ startMs: 0, endMs: 700, outcome: 'cancelled' }).ack(650);
    const s = await analyzeTraces(t);
    expect(dist(await s.total('cancel-latency'), 'ack')).toEqual([0, null, null, null, null]);
    s.close();
  });

  it('per group, and only runs in the window', async () => {
    const t = traces();
    for (const [service, ack, startMs] of [
      ['a', 10, 0],
      ['a', 30, 0],
      ['b', 50, 0],
      ['b', 70, 5000],
    ] as const) {
      const r = t.run({ service, startMs, endMs: startMs + 900 });
      r.cancelRequest(startMs + 100);
      r.ack(startMs + 100 + ack);
    }
    const s = await analyzeTraces(t, { untilMs: 5000 });
    const rows = await s.rows('cancel-latency');
    s.close();
    expect(rows.map((r) => [r['service'], r['total'], ...dist(r, 'ack')])).toEqual([
      ['a', false, 2, 10, 30, 30, 30],
      ['b', false, 1, 50, 50, 50, 50],
      [null, true, 3, 30, 50, 50, 50],
    ]);
  });
});
