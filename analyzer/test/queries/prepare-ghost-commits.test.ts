import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces } from '../../../test/helpers/trace-builder.js';

/** prepare-ghost-commits.sql: commits of a cancelled run after C (report_ghost_commits), compensated or inferred. */
describe('prepare-ghost-commits', () => {
  it('a commit marker later than C is a ghost commit; at or before C it is not', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'pay', callId: 'a', startMs: 10, endMs: 60, effect: 'irreversible' });
    r.commit({ callId: 'a', atMs: 50 });
    r.tool({ name: 'pay', callId: 'b', startMs: 60, endMs: 120 });
    r.commit({ callId: 'b', atMs: 100 });
    r.tool({ name: 'mail', callId: 'c', startMs: 70, endMs: 400, effect: 'reversible' });
    const late = r.commit({ callId: 'c', atMs: 300, state: 'requested' });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_ghost_commits');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ span_id: late, run_id: r.spanId, tool_call_id: 'c', tool: 'mail', effect: 'reversible', after_stop_ns: 200_000_000, compensated: false, inferred: false });
    expect(rows[0]!['time_ns']).toBe(ns(300));
    a.close();
  });

  it('C by outcome alone is the run’s end; a run that was not cancelled has none', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 500, outcome: 'cancelled' });
    r.tool({ name: 'x', callId: 'a', startMs: 10, endMs: 700 });
    r.commit({ callId: 'a', atMs: 600 });
    const ok = t.run({ startMs: 1000, endMs: 1500, outcome: 'completed' });
    ok.tool({ name: 'x', callId: 'b', startMs: 1010, endMs: 1700 });
    ok.commit({ callId: 'b', atMs: 1600 });
    const a = await analyzeTraces(t);
    expect((await a.table('report_ghost_commits')).map((g) => g['tool_call_id'])).toEqual(['a']);
    a.close();
  });

  it('compensated only by a succeeded compensate marker naming its call id', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    for (const id of ['ok', 'failed', 'none']) {
      r.tool({ name: 'mail', callId: id, startMs: 50, endMs: 300, effect: 'irreversible' });
      r.commit({ callId: id, atMs: 200 });
    }
    r.compensate({ callId: 'ok', atMs: 500, outcome: 'succeeded' });
    r.compensate({ callId: 'failed', atMs: 500, outcome: 'failed' });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_ghost_commits', 'ORDER BY tool_call_id');
    expect(rows.map((g) => [g['tool_call_id'], g['compensated']])).toEqual([
      ['failed', false],
      ['none', false],
      ['ok', true],
    ]);
    a.close();
  });

  it('infers ghost commits from tool spans that ended after C without ERROR, only in runs without commit or start markers', async () => {
    const t = traces();
    const foreign = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    foreign.cancelRequest(100);
    foreign.tool({ name: 'book', callId: 'a', startMs: 50, endMs: 400, effect: 'irreversible', startMarker: false });
    foreign.tool({ name: 'book', callId: 'b', startMs: 50, endMs: 400, startMarker: false, status: 'error' });
    foreign.tool({ name: 'book', callId: 'c', startMs: 50, endMs: 90, startMarker: false });
    const marked = t.run({ startMs: 1000, endMs: 1900, outcome: 'cancelled' });
    marked.cancelRequest(1100);
    marked.tool({ name: 'book', callId: 'd', startMs: 1050, endMs: 1400 });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_ghost_commits');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ run_id: foreign.spanId, tool_call_id: 'a', tool: 'book', effect: 'irreversible', inferred: true, compensated: false, after_stop_ns: 300_000_000 });
    expect(rows[0]!['time_ns']).toBe(ns(400));
    a.close();
  });

  it('a commit known only as request_sent is a possible ghost, never a known one: when the request reached the service and when its answer was lost', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    // Body sent at 60, answer lost at 101 (the abort): the service may have committed before or after Stop.
    r.tool({ name: 'send_email', callId: 'a', startMs: 50, endMs: 105, effect: 'irreversible' });
    const lost = r.commit({ callId: 'a', atMs: 101, evidence: 'request_sent', unansweredMs: 41 });
    // Answered after Stop: known (the service answered that it committed).
    r.tool({ name: 'charge', callId: 'b', startMs: 50, endMs: 400, effect: 'irreversible' });
    r.commit({ callId: 'b', atMs: 300, evidence: 'response' });
    // Lost before Stop: not after Stop at all.
    r.tool({ name: 'send_email', callId: 'c', startMs: 10, endMs: 90, effect: 'irreversible' });
    r.commit({ callId: 'c', atMs: 80, evidence: 'request_sent', unansweredMs: 10 });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_ghost_commits', 'ORDER BY tool_call_id');
    expect(rows.map((g) => [g['tool_call_id'], g['possible_kind']])).toEqual([
      ['a', 'request_sent'],
      ['b', null],
    ]);
    expect(rows[0]).toMatchObject({ span_id: lost, inferred: false, after_stop_ns: 1_000_000 });
    expect(rows[0]!['sent_ns']).toBe(ns(60));
    const total = await a.total('ghost-commits');
    expect(total).toMatchObject({ ghost_commits: 1, ghost_commits_possible: 1, ghost_commits_possible_alarming: 1, ghost_commits_alarming: 1 });
    a.close();
  });

  it('a tool call that started and never ended, with no commit marker, is a possible ghost (the process died); not when read-only, ended, or committed', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'send_email', callId: 'a', startMs: 50, effect: 'irreversible' });
    r.tool({ name: 'lookup', callId: 'b', startMs: 50, effect: 'read' });
    r.tool({ name: 'send_email', callId: 'c', startMs: 50, endMs: 400 });
    r.tool({ name: 'charge', callId: 'd', startMs: 50 });
    r.commit({ callId: 'd', atMs: 90 });
    // Started after Stop and never ended: also possible.
    r.tool({ name: 'notify', callId: 'e', startMs: 150 });
    // A run that was not cancelled has no ghosts of any kind.
    t.run({ startMs: 1000, endMs: 1900, outcome: 'completed' }).tool({ name: 'send_email', callId: 'f', startMs: 1050 });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_ghost_commits', 'ORDER BY tool_call_id');
    expect(rows.map((g) => [g['tool_call_id'], g['possible_kind'], g['effect'], Number(g['after_stop_ns']) / 1e6])).toEqual([
      ['a', 'unended', 'irreversible', -50],
      ['e', 'unended', 'unknown', 50],
    ]);
    expect(await a.total('ghost-commits')).toMatchObject({ ghost_commits: 0, ghost_commits_possible: 2, ghost_commits_possible_alarming: 2 });
    a.close();
  });
});
