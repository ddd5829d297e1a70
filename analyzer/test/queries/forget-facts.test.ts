import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingest } from '../../ingest/ingest.js';
import { Store } from '../../store.js';
import { sqlRows, traces } from '../../../test/helpers/trace-builder.js';

/** forget-facts.sql (with run-facts.sql at ingest): a trace that gets new spans has its run facts replaced, not doubled. */
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-facts-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('forget-facts', () => {
  it('replaces the facts of a trace that grew, and keeps those of the others', async () => {
    const first = traces();
    const r = first.run({ conversation: 'c', startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.model({ startMs: 50, endMs: 400, model: 'gpt-4o', input: 1, output: 9 });
    r.repair(500, ['k1']);
    r.span({ name: 'cleanup', startMs: 600, endMs: 700, status: { code: 'error', message: 'cleanup failed' } });
    r.processOrphan(1200);
    const other = first.run({ conversation: 'd', startMs: 0, endMs: 500 });
    other.model({ startMs: 0, endMs: 100, model: 'gpt-4o', input: 1, output: 1 });
    const file = path.join(dir, 'a.jsonl');
    fs.copyFileSync(first.write(), file);
    const store = await Store.open(':memory:');
    try {
      await ingest(store, [dir]);
      const before = await sqlRows(store, 'SELECT trace_id, count(*) AS n FROM spans GROUP BY ALL ORDER BY 1');
      // The stopped run's ack arrives in a later file, in the same trace.
      r.ack(150);
      fs.writeFileSync(path.join(dir, 'b.jsonl'), fs.readFileSync(first.write()));
      await ingest(store, [dir]);
      const after = await sqlRows(store, 'SELECT trace_id, count(*) AS n FROM spans GROUP BY ALL ORDER BY 1');
      expect(after.map((x) => x['n'])).toEqual(before.map((x, i) => (i === 0 ? (x['n'] as number) + 1 : x['n'])));
      const runs = await sqlRows(store, 'SELECT run_id, a_ns IS NOT NULL AS acked FROM run_facts ORDER BY run_id');
      expect(runs).toHaveLength(2);
      expect(runs.find((x) => x['run_id'] === r.spanId)?.['acked']).toBe(true);
      // The grown trace's model calls and repairs are recomputed once, not doubled.
      expect(await sqlRows(store, 'SELECT count(*) AS n FROM model_call_facts')).toEqual([{ n: 1 }]);
      expect(await sqlRows(store, 'SELECT count(*) AS n FROM repair_facts')).toEqual([{ n: 1 }]);
      expect(await sqlRows(store, 'SELECT count(*) AS n FROM error_span_facts')).toEqual([{ n: 1 }]);
      expect(await sqlRows(store, 'SELECT count(*) AS n FROM orphan_process_facts')).toEqual([{ n: 1 }]);
    } finally {
      store.close();
    }
  });
});
