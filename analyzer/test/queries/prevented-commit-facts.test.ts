import { describe, expect, it } from 'vitest';
import { analyzeTraces, relMs, traces } from '../../../test/helpers/trace-builder.js';

/** prevented-commit-facts.sql: the afterstop.tool.commit.prevented markers of each run (the store's prevented_commit_facts). */
describe('prevented-commit-facts', () => {
  it('keeps each prevented-commit marker with its tool, call id and effect class; no commit marker', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 1000 });
    r.cancelRequest(100);
    r.tool({ name: 'charge_card', callId: 'c1', startMs: 10, endMs: 400, effect: 'irreversible' });
    r.prevented({ callId: 'c1', atMs: 300 });
    r.commit({ callId: 'c1', atMs: 50 });
    r.tool({ name: 'anon', callId: 'c2', startMs: 10, endMs: 400 });
    r.prevented({ callId: 'c2', atMs: 350, tool: 'anon' });
    const a = await analyzeTraces(t);
    const rows = await a.table('prevented_commit_facts', 'ORDER BY start_ns');
    a.close();
    expect(rows.map((o) => [o['run_id'], relMs(o['start_ns']), o['tool'], o['tool_call_id'], o['effect']])).toEqual([
      [r.spanId, 300, 'charge_card', 'c1', 'irreversible'],
      [r.spanId, 350, 'anon', 'c2', 'unknown'],
    ]);
  });

  it('goes with its run when the retention forgets it (prune-facts)', async () => {
    const t = traces();
    const r1 = t.run({ startMs: 0, endMs: 900 });
    r1.tool({ name: 'a', callId: 'a', startMs: 10, endMs: 400 });
    r1.prevented({ callId: 'a', atMs: 100 });
    const r2 = t.run({ startMs: 1000, endMs: 1900 });
    r2.tool({ name: 'b', callId: 'b', startMs: 1010, endMs: 1400 });
    r2.prevented({ callId: 'b', atMs: 1100 });
    const a = await analyzeTraces(t);
    expect((await a.table('prevented_commit_facts', 'ORDER BY tool')).map((o) => o['tool'])).toEqual(['a', 'b']);
    await a.forgetRun(r1);
    expect((await a.table('prevented_commit_facts')).map((o) => o['tool'])).toEqual(['b']);
    a.close();
  });
});
