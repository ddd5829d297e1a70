import { describe, expect, it } from 'vitest';
import { analyzeTraces, BASE_NS, traces } from '../../../test/helpers/trace-builder.js';

/** timeline.sql: cancelled runs, ghost commits, tokens after Stop and ghost tax per time bucket and service. */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const bucketMs = (v: unknown) => Number((BigInt(String(v)) - BASE_NS) / 1_000_000n);

describe('timeline', () => {
  it('hours for a short window; a run counts where it starts; runs not cancelled do not count', async () => {
    const t = traces();
    const stopped = (service: string, startMs: number) => {
      const r = t.run({ service, startMs, endMs: startMs + 5000, outcome: 'cancelled' });
      r.cancelRequest(startMs + 100);
      return r;
    };
    const a = stopped('a', 0);
    a.tool({ name: 'x', callId: 'g', startMs: 50, endMs: 300 });
    a.commit({ callId: 'g', atMs: 200 });
    a.model({ startMs: 0, endMs: 1000, model: 'gpt-4o', input: 1000, output: 100, ttfcMs: 0 });
    stopped('a', HOUR + 1);
    stopped('b', 10);
    t.run({ service: 'a', startMs: 20, endMs: 30 });
    const s = await analyzeTraces(t);
    const rows = await s.rows('timeline');
    s.close();
    // BASE_NS is not on an hour boundary: buckets are the hours the runs fall in.
    const base = bucketMs(rows[0]!['bucket_ns']);
    expect(rows.map((r) => [r['unit'], bucketMs(r['bucket_ns']) - base, r['service'], r['cancelled_runs'], r['ghost_commits']])).toEqual([
      ['hour', 0, 'a', 1, 1],
      ['hour', 0, 'b', 1, 0],
      ['hour', HOUR, 'a', 1, 0],
    ]);
    expect(rows[0]!['output']).toBeGreaterThan(0);
    expect(rows[0]!['ghost_tax_usd']).toBeGreaterThan(0);
  });

  it('days when the cancelled runs span more than two days', async () => {
    const t = traces();
    for (const startMs of [0, 3 * DAY]) {
      const r = t.run({ startMs, endMs: startMs + 1000, outcome: 'cancelled' });
      r.cancelRequest(startMs + 100);
    }
    const s = await analyzeTraces(t);
    const rows = await s.rows('timeline');
    s.close();
    expect(rows.map((r) => [r['unit'], bucketMs(r['bucket_ns']) - bucketMs(rows[0]!['bucket_ns'])])).toEqual([
      ['day', 0],
      ['day', 3 * DAY],
    ]);
  });
});
