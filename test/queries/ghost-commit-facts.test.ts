import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces } from '../helpers/trace-builder.js';

/** ghost-commit-facts.sql: the ghost commits of each run, kept at ingest (ghost_commit_facts); whether one was compensated is said at report time. */
describe('ghost-commit-facts', () => {
  it('one row per ghost commit of a cancelled run: known and possible ones compensable, inferred ones not', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'pay', callId: 'a', startMs: 10, endMs: 400, effect: 'irreversible' });
    const known = r.commit({ callId: 'a', atMs: 300 });
    r.tool({ name: 'mail', callId: 'b', startMs: 20 }); // started, never ended, no commit: possible
    const foreign = t.run({ startMs: 1000, endMs: 1900, outcome: 'cancelled' });
    foreign.tool({ name: 'post', startMs: 1010, endMs: 1950, startMarker: false }); // no markers: inferred
    // afterstop's own call that ended before the next export: no start marker, its span is of afterstop's
    // tracer (SEMCONV.md). Not a foreign run: nothing inferred, and without a commit marker no ghost.
    const mine = t.run({ startMs: 2000, endMs: 2900, outcome: 'cancelled' });
    mine.cancelRequest(2100);
    mine.tool({ name: 'charge', callId: 'm', startMs: 2010, endMs: 2300, effect: 'irreversible', startMarker: false, scope: 'afterstop' });
    const a = await analyzeTraces(t);
    const rows = await a.table('ghost_commit_facts', 'ORDER BY time_ns');
    expect(rows.map((g) => [g['tool'], g['compensable'], g['inferred'], g['possible_kind']])).toEqual([
      ['mail', true, false, 'unended'],
      ['pay', true, false, null],
      ['post', false, true, null],
    ]);
    expect(rows[1]).toMatchObject({ span_id: known, after_stop_ns: 200_000_000 });
    expect(rows[1]!['time_ns']).toBe(ns(300));
    a.close();
  });
});
