import { describe, expect, it } from 'vitest';
import { analyzeTraces, ns, traces } from '../../../test/helpers/trace-builder.js';

/** ghost-spans.sql: the spans ghost-commit-facts.sql reads, of the cancelled runs only, each with its run's C and the call it is of. */
describe('ghost-spans', () => {
  it("holds the tool spans and the commit and start markers of cancelled runs, with C; nothing of a run that was not stopped, nor a run's other spans", async () => {
    const t = traces();
    const stopped = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    stopped.cancelRequest(100);
    stopped.model({ startMs: 5, endMs: 50 });
    stopped.tool({ name: 'pay', callId: 'a', startMs: 10, endMs: 400, effect: 'irreversible' });
    const commit = stopped.commit({ callId: 'a', atMs: 300 });
    const finished = t.run({ startMs: 1000, endMs: 1900 });
    finished.tool({ name: 'mail', callId: 'b', startMs: 1010, endMs: 1400 });
    finished.commit({ callId: 'b', atMs: 1300 });
    const a = await analyzeTraces(t);
    const rows = await a.table('ghost_spans', 'ORDER BY start_ns, name');
    expect(rows.map((r) => [r['name'], r['tool_call_id'], r['c_ns']])).toEqual([
      ['afterstop.tool.start', 'a', ns(100)],
      ['execute_tool pay', 'a', ns(100)],
      ['afterstop.tool.commit', 'a', ns(100)],
    ]);
    expect(rows[2]).toMatchObject({ span_id: commit, run_start_ns: ns(0) });
    a.close();
  });

  it("gives each the call it is of: its own tool call id, else (a commit marker without one) its parent tool span's", async () => {
    const t = traces();
    const stopped = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    stopped.cancelRequest(100);
    stopped.tool({ name: 'pay', callId: 'a', startMs: 10, endMs: 400 });
    stopped.commit({ callId: 'a', atMs: 300 });
    // A foreign execute_tool span's marker carries no call id (Google ADK sets the span's only at its end).
    stopped.tool({ name: 'ship', callId: 'b', startMs: 20, endMs: 500 });
    const bare = stopped.commit({ callId: 'b', atMs: 350, noCallId: true });
    const a = await analyzeTraces(t);
    const rows = await a.table('ghost_spans', 'ORDER BY start_ns, name');
    a.close();
    expect(rows.map((r) => [r['name'], r['tool_call_id'], r['call_key']])).toEqual([
      ['afterstop.tool.start', 'a', 'a'],
      ['execute_tool pay', 'a', 'a'],
      ['afterstop.tool.start', 'b', 'b'],
      ['execute_tool ship', 'b', 'b'],
      ['afterstop.tool.commit', 'a', 'a'],
      ['afterstop.tool.commit', null, 'b'],
    ]);
    expect(rows[5]).toMatchObject({ span_id: bare });
  });
});
