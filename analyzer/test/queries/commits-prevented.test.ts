import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** commits-prevented.sql and prevented-commit-facts.sql: the commits the guard's fence refused, per group and in total. */
describe('commits-prevented', () => {
  it('counts prevented-commit markers per group and in total, the irreversible or unknown ones apart; by tool beside the ghost commits', async () => {
    const t = traces();
    const a = t.run({ service: 'a', startMs: 0, endMs: 900 });
    a.cancelRequest(100);
    a.tool({ name: 'send_email', callId: 'e1', startMs: 10, endMs: 300, effect: 'irreversible' });
    a.prevented({ callId: 'e1', atMs: 200 });
    a.prevented({ callId: 'e1', atMs: 210 });
    a.tool({ name: 'save_note', callId: 'n1', startMs: 10, endMs: 300, effect: 'reversible' });
    a.prevented({ callId: 'n1', atMs: 220 });
    a.commit({ callId: 'n1', atMs: 250, state: 'requested', evidence: 'response' });
    const b = t.run({ service: 'b', startMs: 0, endMs: 900 });
    b.cancelRequest(100);
    b.tool({ name: 'send_email', callId: 'e2', startMs: 10, endMs: 300, effect: 'irreversible' });
    b.prevented({ callId: 'e2', atMs: 150 });
    t.run({ service: 'c', startMs: 0, endMs: 900 });
    const s = await analyzeTraces(t);
    const rows = await s.rows('commits-prevented');
    const byTool = (await s.rows('ghost-commits-by-tool')).filter((r) => r['total']);
    s.close();
    expect(rows.map((r) => [r['service'], r['commits_prevented'], r['commits_prevented_alarming']])).toEqual([
      ['a', 3, 2],
      ['b', 1, 1],
      ['c', 0, 0],
      [null, 4, 3],
    ]);
    expect(byTool.map((r) => [r['tool'], r['effect'], r['ghost_commits'], r['commits_prevented']])).toEqual([
      ['save_note', 'reversible', 1, 1],
      ['send_email', 'irreversible', 0, 3],
    ]);
  });

  it('only runs in the window', async () => {
    const t = traces();
    for (const startMs of [0, 5000]) {
      const r = t.run({ startMs, endMs: startMs + 900 });
      r.cancelRequest(startMs + 100);
      r.tool({ name: 'pay', callId: `p${startMs}`, startMs: startMs + 10, endMs: startMs + 300 });
      r.prevented({ callId: `p${startMs}`, atMs: startMs + 200 });
    }
    const s = await analyzeTraces(t, { untilMs: 4000 });
    expect(await s.total('commits-prevented')).toMatchObject({ commits_prevented: 1 });
    s.close();
  });
});
