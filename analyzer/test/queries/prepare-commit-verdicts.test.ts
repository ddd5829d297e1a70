import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, type Run, traces } from '../../../test/helpers/trace-builder.js';

/**
 * prepare-commit-verdicts.sql (issue 49): the clock bound per ordered pair of processes over every pair the store
 * keeps (δ_max the least server start − client start, δ_min the greatest server start − client end of an answered
 * pair), each commit's interval mapped through it, and the verdict. C = 100 ms.
 */
const stopped = (r: Run): Run => {
  r.cancelRequest(100);
  return r;
};

describe('prepare-commit-verdicts', () => {
  it('bounds the clocks from the pairs of every trace, and maps the witness with them', async () => {
    const t = traces();
    // Another trace's answered request between the same processes tightens δ_min to -2 ms, δ_max to +1 ms.
    const other = t.run({ startMs: 0, endMs: 50, outcome: 'completed' });
    other.tool({ name: 'list_orders', callId: 'o1', startMs: 1, endMs: 20, effect: 'read' });
    other.serviceSpan({ name: 'GET /orders', parent: other.request({ callId: 'o1', startMs: 10, endMs: 13, status: 200 }), kind: 2, startMs: 11, endMs: 12 });
    const r = stopped(t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' }));
    r.tool({ name: 'send_order', callId: 'c1', startMs: 60, endMs: 150, result: 'cancelled', effect: 'irreversible' });
    const request = r.request({ callId: 'c1', startMs: 60, endMs: 150 });
    const commit = r.commit({ callId: 'c1', atMs: 150, evidence: 'request_sent', unansweredMs: 80, requestSpanId: request });
    const entry = r.serviceSpan({ name: 'POST /orders', parent: request, kind: 2, startMs: 75, endMs: 130 });
    r.serviceSpan({ name: 'INSERT orders', parent: entry, kind: 3, startMs: 97, endMs: 99, attrs: { 'db.system': 'postgresql' } });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_commit_verdicts');
    a.close();
    // The write at [97, 99] in the service's clock is [96, 101] in the agent's: it holds C, possible (request_sent).
    expect(rows.map((v) => [v['span_id'], v['verdict'], v['possible_kind'], Number(v['d_min_ns']) / 1e6, Number(v['d_max_ns']) / 1e6, relMs(v['earliest_ns']), relMs(v['latest_ns'])])).toEqual([
      [commit, 'possible', 'request_sent', -2, 1, 96, 101],
    ]);
  });

  it('leaves a commit without a witness to its own evidence, and the other ghosts as kept', async () => {
    const t = traces();
    const r = stopped(t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' }));
    r.tool({ name: 'pay', callId: 'a', startMs: 10, endMs: 400, effect: 'irreversible' });
    const known = r.commit({ callId: 'a', atMs: 300 });
    r.tool({ name: 'hang', callId: 'b', startMs: 90, effect: 'irreversible' });
    const a = await analyzeTraces(t);
    const rows = await a.table('report_commit_verdicts', 'ORDER BY span_id');
    a.close();
    const commitRow = rows.find((v) => v['span_id'] === known)!;
    expect(commitRow).toMatchObject({ verdict: 'known', possible_kind: null, evidence: 'manual', witness: null, confirmed: false, ruled_out: false, in_window: true });
    expect([relMs(commitRow['earliest_ns']), relMs(commitRow['latest_ns'])]).toEqual([300, 300]);
    // A tool that never ended: possible as kept (unended), no interval of its own.
    expect(rows.filter((v) => v['span_id'] !== known).map((v) => [v['tool_call_id'], v['verdict'], v['possible_kind'], v['evidence'], v['earliest_ns']])).toEqual([['b', 'possible', 'unended', null, null]]);
  });
});
