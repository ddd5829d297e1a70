import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces } from '../../../test/helpers/trace-builder.js';

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

  it('a call in flight at C whose effect was out of sight (an MCP tools/call), not read-only and without a commit after C, is possible: out_of_sight, at its end', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    const mcp = { 'afterstop.tool.out_of_sight': 'mcp' };
    const stdio = r.tool({ name: 'send_email', callId: 'o', startMs: 10, endMs: 105, result: 'cancelled', attrs: mcp });
    r.tool({ name: 'search', callId: 'r', startMs: 10, endMs: 150, effect: 'read', attrs: mcp }); // read-only: no effect to miss
    r.tool({ name: 'archive', callId: 'e', startMs: 10, endMs: 60, attrs: mcp }); // ended before C: before Stop
    r.tool({ name: 'notify', callId: 'h', startMs: 20, endMs: 210, attrs: mcp }); // its request's answer lost: request_sent once
    r.commit({ callId: 'h', atMs: 200, evidence: 'request_sent', unansweredMs: 150 });
    r.tool({ name: 'plain', callId: 'p', startMs: 10, endMs: 105, result: 'cancelled' }); // in sight, no commit: nothing
    const a = await analyzeTraces(t);
    const rows = await a.table('ghost_commit_facts', 'ORDER BY time_ns');
    expect(rows.map((g) => [g['tool'], g['possible_kind'], g['inferred']])).toEqual([
      ['send_email', 'out_of_sight', false],
      ['notify', 'request_sent', false],
    ]);
    expect(rows[0]).toMatchObject({ span_id: stdio, after_stop_ns: 5_000_000, tool_call_id: 'o', effect: 'unknown' });
    a.close();
  });

  it("a commit after Stop the guard's fence let through (a cancel call, cleanup) is the Stop propagating, not a ghost; another commit of the same call still is", async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'render_job', callId: 'j', startMs: 10, endMs: 300, commitCount: 2 });
    r.commit({ callId: 'j', atMs: 50 }); // before Stop: the job started
    r.commit({ callId: 'j', atMs: 200, fencePassed: 'cancel' }); // POST /jobs/1/cancel after Stop
    r.tool({ name: 'session', callId: 's', startMs: 10, endMs: 300, commitCount: 1 });
    r.commit({ callId: 's', atMs: 250, fencePassed: 'cleanup' }); // finally { DELETE /session }
    r.tool({ name: 'pay', callId: 'p', startMs: 10, endMs: 400, commitCount: 2 });
    r.commit({ callId: 'p', atMs: 150, fencePassed: 'cleanup' });
    const charge = r.commit({ callId: 'p', atMs: 350 }); // a real effect after Stop beside it
    const a = await analyzeTraces(t);
    const rows = await a.table('ghost_commit_facts', 'ORDER BY time_ns');
    expect(rows.map((g) => [g['tool'], g['span_id'], g['possible_kind']])).toEqual([['pay', charge, null]]);
    a.close();
  });
});
