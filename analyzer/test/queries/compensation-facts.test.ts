import { describe, expect, it } from 'vitest';
import { ingestFiles, openStore, prepare, sqlRows, traces, writeLines } from '../../../test/helpers/trace-builder.js';

/** compensation-facts.sql: the succeeded compensations, kept at ingest; prepare-ghost-commits.sql matches them with the ghost commits at report time. */
describe('compensation-facts', () => {
  it('a compensation in another trace, read by a later ingest, covers a ghost commit kept from an earlier one (its trace not read again)', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.tool({ name: 'pay', callId: 'pay-1', startMs: 10, endMs: 400, effect: 'irreversible' });
    r.commit({ callId: 'pay-1', atMs: 300 });
    const first = t.toLines().length;
    t.run({ startMs: 2000, endMs: 2900 }).compensate({ callId: 'pay-1', atMs: 2100, outcome: 'succeeded' });
    const lines = t.toLines();
    const ghostFile = writeLines(lines.slice(0, first), 'ghost.jsonl');
    const laterFile = writeLines(lines.slice(first), 'later.jsonl');
    const store = await openStore();
    try {
      await ingestFiles(store, [ghostFile]);
      await prepare(store);
      expect(await sqlRows(store, 'SELECT tool_call_id, compensated FROM report_ghost_commits')).toEqual([{ tool_call_id: 'pay-1', compensated: false }]);
      const kept = await sqlRows(store, 'SELECT span_id, compensable FROM ghost_commit_facts');
      await ingestFiles(store, [ghostFile, laterFile]);
      // The ghost's trace was not read again: its kept row is the same; the compensation is the later trace's.
      expect(await sqlRows(store, 'SELECT span_id, compensable FROM ghost_commit_facts')).toEqual(kept);
      expect(await sqlRows(store, 'SELECT tool_call_id FROM compensation_facts')).toEqual([{ tool_call_id: 'pay-1' }]);
      await prepare(store);
      expect(await sqlRows(store, 'SELECT tool_call_id, compensated FROM report_ghost_commits')).toEqual([{ tool_call_id: 'pay-1', compensated: true }]);
    } finally {
      store.close();
    }
  });
});
