import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../../../test/helpers/trace-builder.js';

/** ghost-commits-by-tool.sql: ghost commits per tool and effect class, most first, per group and in total, METRICS.md §2. */
describe('ghost-commits-by-tool', () => {
  it('groups by tool and effect, observed and inferred apart, over the runs in the window', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled', agent: 'mailer' });
    r.cancelRequest(100);
    const commits: [string, string, string | undefined][] = [
      ['1', 'send_email', 'irreversible'],
      ['2', 'send_email', 'irreversible'],
      ['3', 'send_email', 'reversible'],
      ['4', 'charge', undefined],
    ];
    for (const [id, name, effect] of commits) {
      r.tool({ name, callId: id, startMs: 50, endMs: 400, ...(effect ? { effect } : {}) });
      r.commit({ callId: id, atMs: 200 });
    }
    const foreign = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled', agent: 'booker' });
    foreign.cancelRequest(100);
    foreign.tool({ name: 'book', callId: 'f', startMs: 50, endMs: 400, startMarker: false });
    const outside = t.run({ startMs: 9000, endMs: 9900, outcome: 'cancelled' });
    outside.cancelRequest(9100);
    outside.tool({ name: 'send_email', callId: 'o', startMs: 9050, endMs: 9400, effect: 'irreversible' });
    outside.commit({ callId: 'o', atMs: 9200 });
    const s = await analyzeTraces(t, { untilMs: 9000 });
    const rows = await s.rows('ghost-commits-by-tool');
    s.close();
    const figures = (x: Record<string, unknown>) => [x['agent'], x['tool'], x['effect'], x['ghost_commits'], x['ghost_commits_inferred']];
    expect(rows.filter((x) => x['total']).map(figures)).toEqual([
      [null, 'send_email', 'irreversible', 2, 0],
      [null, 'charge', 'unknown', 1, 0],
      [null, 'send_email', 'reversible', 1, 0],
      [null, 'book', 'unknown', 0, 1],
    ]);
    // The same per group: each agent's tools under its name.
    expect(rows.filter((x) => !x['total']).map(figures)).toEqual([
      ['booker', 'book', 'unknown', 0, 1],
      ['mailer', 'send_email', 'irreversible', 2, 0],
      ['mailer', 'charge', 'unknown', 1, 0],
      ['mailer', 'send_email', 'reversible', 1, 0],
    ]);
  });
});
