import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces, type Run, type Traces } from '../../../test/helpers/trace-builder.js';

/** prepare-cancel-depth.sql: depth 0–4 per cancelled run (report_cancel_depth), METRICS.md §8. C = 100 ms, A = 150 ms. */
const scenarios: Record<string, [number, (r: Run) => void, boolean?]> = {
  'model starts after A': [0, (r) => r.model({ startMs: 200, endMs: 300, model: 'gpt-4o' })],
  // Level 1 is measured from the Stop request (METRICS.md §8), not from the ack: a whole new call made
  // between C and a late ack is the loop going on.
  'model starts after C, before A': [0, (r) => r.model({ startMs: 120, endMs: 140, model: 'gpt-4o' })],
  'tool start marker after C, before A': [0, (r) => r.tool({ name: 'x', callId: 'a', startMs: 101 })],
  'tool start marker after A': [0, (r) => r.tool({ name: 'x', callId: 'a', startMs: 151 })],
  'no ack, tool starts after C + 1 s': [0, (r) => r.tool({ name: 'x', callId: 'a', startMs: 1101, endMs: 1102 }), false],
  'no ack, model starts after C, ends fast': [0, (r) => r.model({ startMs: 1000, endMs: 1050, model: 'gpt-4o' }), false],
  // At C exactly counts as after Stop, as §4 counts it (s ≥ C: calls_started_after_stop).
  'model starts at C exactly': [0, (r) => r.model({ startMs: 100, endMs: 105, model: 'gpt-4o' })],
  'model starts just before C, ends fast': [4, (r) => r.model({ startMs: 99.9, endMs: 105, model: 'gpt-4o' })],
  // Compensation (a refund after the Stop) is not the loop going on.
  'compensating tool after C': [4, (r) => r.tool({ name: 'refund', callId: 'r', startMs: 120, endMs: 140, toolKind: 'compensate' })],
  'model in flight at C ends after C + 1 s': [1, (r) => r.model({ startMs: 0, endMs: 1101, model: 'gpt-4o' })],
  'model in flight at C ends at C + 1 s': [4, (r) => r.model({ startMs: 0, endMs: 1100, model: 'gpt-4o' })],
  'tool in flight at C never ended': [2, (r) => r.tool({ name: 'x', callId: 'a', startMs: 50 })],
  'tool in flight at C ends after C + 1 s': [2, (r) => r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 1200 })],
  'ghost commit': [
    3,
    (r) => {
      r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 300 });
      r.commit({ callId: 'a', atMs: 200 });
    },
  ],
  // A call afterstop recorded that ended before the next export has no start marker (SEMCONV.md): its span,
  // of afterstop's tracer, is the evidence; a foreign one's effect cannot be seen, even with an effect class.
  'afterstop tool span without start marker, in flight at C, ends in budget': [4, (r) => r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 300, effect: 'irreversible', startMarker: false, scope: 'afterstop' })],
  // Depth 4 needs evidence: a span without afterstop.tool.commit.count (an older afterstop, a hand-written trace)
  // that ran its course after Stop with no commit marker cannot show that it made no commit (a marker lost to a
  // crash or an export looks the same): a possible ghost. One that ended cancelled, or that counts no commit, can.
  'afterstop tool span without the commit count, ran its course after C, no marker': [3, (r) => r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 300, effect: 'irreversible', result: 'late', commitCount: null })],
  'afterstop tool span without the commit count, cancelled after C': [
    4,
    (r) => r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 300, effect: 'irreversible', result: 'cancelled', status: 'error', commitCount: null }),
  ],
  'afterstop tool span counting a commit the store lost, ended after C': [3, (r) => r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 300, effect: 'irreversible', commitCount: 1 })],
  'afterstop tool span with a request unanswered at its end, no marker': [
    3,
    (r) => r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 300, result: 'cancelled', status: 'error', attrs: { 'afterstop.tool.commit.pending': 1 } }),
  ],
  'afterstop tool span whose framework stopped waiting for its body, no marker': [
    3,
    (r) => r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 102, result: 'cancelled', status: 'error', attrs: { 'afterstop.tool.body_detached': true } }),
  ],
  'afterstop tool span counting its commit, marker before C': [
    4,
    (r) => {
      r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 300, commitCount: 1 });
      r.commit({ callId: 'a', atMs: 90 });
    },
  ],
  'foreign tool span in flight at C, ends in budget': [3, (r) => r.tool({ name: 'x', callId: 'a', startMs: 50, endMs: 300, effect: 'irreversible', startMarker: false })],
  // Depth 4 needs evidence: a call whose effect was out of afterstop's sight (an MCP tools/call) in flight at C is
  // a possible ghost, even when it ended at once and delivered nothing; read-only, or done before C, it is not.
  'out-of-sight tool in flight at C, cancelled at once': [3, (r) => r.tool({ name: 'send_email', callId: 'a', startMs: 50, endMs: 102, result: 'cancelled', attrs: { 'afterstop.tool.out_of_sight': 'mcp' } })],
  'out-of-sight read-only tool in flight at C': [4, (r) => r.tool({ name: 'search', callId: 'a', startMs: 50, endMs: 102, effect: 'read', result: 'cancelled', attrs: { 'afterstop.tool.out_of_sight': 'mcp' } })],
  'out-of-sight tool done before C': [4, (r) => r.tool({ name: 'send_email', callId: 'a', startMs: 10, endMs: 60, attrs: { 'afterstop.tool.out_of_sight': 'mcp' } })],
  quiet: [
    4,
    (r) => {
      r.tool({ name: 'x', callId: 'a', startMs: 10, endMs: 60 });
      r.commit({ callId: 'a', atMs: 50 });
    },
  ],
};

/** Every scenario is a run of its own trace, starting at 0. */
const build = (): [Traces, Map<string, string>] => {
  const t = traces();
  const ids = new Map<string, string>();
  for (const [name, [, body, ack]] of Object.entries(scenarios)) {
    const r = t.run({ startMs: 0, endMs: 5000, outcome: 'cancelled' });
    r.cancelRequest(100);
    if (ack !== false) r.ack(150);
    body(r);
    ids.set(r.spanId, name);
  }
  return [t, ids];
};

describe('prepare-cancel-depth', () => {
  it('stops at the first level that fails', async () => {
    const [t, ids] = build();
    const a = await analyzeTraces(t);
    const rows = await a.table('report_cancel_depth');
    a.close();
    expect(Object.fromEntries(rows.map((d) => [ids.get(d['run_id'] as string), d['depth']]))).toEqual(Object.fromEntries(Object.entries(scenarios).map(([k, [d]]) => [k, d])));
  });

  it('the budget is a parameter: 2 s lets the slow model and tool pass', async () => {
    const [t, ids] = build();
    const a = await analyzeTraces(t, { budgetMs: 2000 });
    const depth = Object.fromEntries((await a.table('report_cancel_depth')).map((d) => [ids.get(d['run_id'] as string), d['depth']]));
    a.close();
    expect([depth['model in flight at C ends after C + 1 s'], depth['tool in flight at C ends after C + 1 s'], depth['tool in flight at C never ended'], depth['no ack, tool starts after C + 1 s']]).toEqual([4, 4, 2, 0]);
  });

  it('a quiet run beside a framework afterstop does not instrument (afterstop.run.uninstrumented) stops at 3: its effects cannot be seen', async () => {
    const t = traces();
    const beside = t.run({ startMs: 0, endMs: 5000, outcome: 'cancelled', attrs: { 'afterstop.run.uninstrumented': '@anthropic-ai/claude-agent-sdk' } });
    const alone = t.run({ startMs: 0, endMs: 5000, outcome: 'cancelled' });
    for (const r of [beside, alone]) {
      r.cancelRequest(100);
      r.ack(150);
    }
    const a = await analyzeTraces(t);
    const depth = Object.fromEntries((await a.table('report_cancel_depth')).map((d) => [d['run_id'], [d['depth'], d['effects_ok']]]));
    a.close();
    expect([depth[beside.spanId], depth[alone.spanId]]).toEqual([
      [3, false],
      [4, true],
    ]);
  });

  it('only cancelled runs get a row', async () => {
    const t = traces();
    t.run({ startMs: 0, endMs: 100, outcome: 'completed' });
    const a = await analyzeTraces(t);
    expect(await a.table('report_cancel_depth')).toEqual([]);
    a.close();
  });
});
