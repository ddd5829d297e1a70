import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** cancel-latency-histogram.sql: ack and settle latencies of the window's cancelled runs, in buckets. */
describe('cancel-latency-histogram', () => {
  it('puts each latency in the first bucket whose bound it does not exceed; lists empty buckets', async () => {
    const t = traces();
    const run = (ackMs: number | null, settleMs: number) => {
      const r = t.run({ startMs: 0, endMs: 20_000, outcome: 'cancelled' });
      r.cancelRequest(100);
      if (ackMs !== null) r.ack(100 + ackMs);
      r.settle(100 + settleMs);
    };
    run(10, 10); // a bound belongs to its bucket
    run(10.5, 400);
    run(30_000, 12_000); // above the last bound
    run(null, 0); // never acknowledged: no ack latency
    const s = await analyzeTraces(t);
    const rows = await s.rows('cancel-latency-histogram');
    s.close();
    const of = (measure: string) => rows.filter((r) => r['measure'] === measure).map((r) => [r['upper_ms'], r['runs']]);
    expect(of('ack')).toEqual([
      [10, 1],
      [25, 1],
      [50, 0],
      [100, 0],
      [250, 0],
      [500, 0],
      [1000, 0],
      [2500, 0],
      [5000, 0],
      [10000, 0],
      [null, 1],
    ]);
    expect(of('settle').filter(([, n]) => n !== 0)).toEqual([
      [10, 2],
      [500, 1],
      [null, 1],
    ]);
  });
});
