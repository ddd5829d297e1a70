import { describe, expect, it } from 'vitest';
import { analyzeTraces, traces } from '../helpers/trace-builder.js';

/** ghost-commits-by-tool.sql: ghost commits per tool and effect class, most first, METRICS.md §2. */
describe('ghost-commits-by-tool', () => {
  it('groups by tool and effect, observed and inferred apart, over the runs in the window', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    const commits: [string, string, string | undefined][] = [['1', 'send_email', 'irreversible'], ['2', 'send_email', 'irreversible'], ['3', 'send_email', 'reversible'], ['4', 'charge', undefined]];
    for (const [id, name, effect] of commits) {
      r.tool({ name, callId: id, startMs: 50, endMs: 400, ...(effect ? { effect } : {}) });
      r.commit({ callId: id, atMs: 200 });
    }
    const foreign = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    foreign.cancelRequest(100);
    foreign.tool({ name: 'book', callId: 'f', startMs: 50, endMs: 400, startMarker: false });
    const outside = t.run({ startMs: 9000, endMs: 9900, outcome: 'cancelled' });
    outside.cancelRequest(9100);
    outside.tool({ name: 'send_email', callId: 'o', startMs: 9050, endMs: 9400, effect: 'irreversible' });
    outside.commit({ callId: 'o', atMs: 9200 });
    const s = await analyzeTraces(t, { untilMs: 9000 });
    const rows = await s.rows('ghost-commits-by-tool');
    s.close();
    expect(rows).toEqual([
      { tool: 'send_email', effect: 'irreversible', ghost_commits: 2, ghost_commits_inferred: 0 },
      { tool: 'charge', effect: 'unknown', ghost_commits: 1, ghost_commits_inferred: 0 },
      { tool: 'send_email', effect: 'reversible', ghost_commits: 1, ghost_commits_inferred: 0 },
      { tool: 'book', effect: 'unknown', ghost_commits: 0, ghost_commits_inferred: 1 },
    ]);
  });
});
