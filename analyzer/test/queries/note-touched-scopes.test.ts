import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingest } from '../../ingest/ingest.js';
import { pruneSpanFiles } from '../../span-files.js';
import { Store } from '../../store.js';
import { ns, sqlRows, traces, type Traces } from '../../../test/helpers/trace-builder.js';

/**
 * note-touched-scopes.sql (with forget-facts.sql and prune-facts.sql): what a conversation's steering marks
 * and commits come to (steer_facts, replay_facts) is recomputed from every trace of the conversation when an
 * ingest or a prune touches one of them, and kept as it is otherwise.
 */
let dir: string;
let store: Store;
let files = 0;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-scopes-'));
  fs.mkdirSync(path.join(dir, 'traces'));
  store = await Store.open(path.join(dir, 'store'));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
/** Every span so far in a new file of the traces folder, then an ingest of the folder (it reads the new file). */
const ingestSoFar = async (t: Traces): Promise<void> => {
  fs.copyFileSync(t.write(), path.join(dir, 'traces', `${files++}.jsonl`));
  await ingest(store, [path.join(dir, 'traces')]);
};
const DAY_MS = 86_400_000;

describe('note-touched-scopes', () => {
  it('a steer enqueued in one ingest and injected, in another trace of its conversation, in a later one is one steer', async () => {
    const t = traces();
    const first = t.run({ conversation: 'c', startMs: 0, endMs: 1000 });
    first.steerEnqueue('s1', 100);
    const other = t.run({ conversation: 'd', startMs: 0, endMs: 1000 });
    other.steerEnqueue('s9', 100);
    await ingestSoFar(t);
    const steers = () => sqlRows(store, 'SELECT scope, steer_id, run_id, inject_ms, dropped FROM steer_facts ORDER BY scope, steer_id');
    expect(await steers()).toEqual([
      { scope: 'c', steer_id: 's1', run_id: first.spanId, inject_ms: null, dropped: true },
      { scope: 'd', steer_id: 's9', run_id: other.spanId, inject_ms: null, dropped: true },
    ]);
    const next = t.run({ conversation: 'c', startMs: 2000, endMs: 3000 });
    next.steerInject('s1', 2100);
    await ingestSoFar(t);
    expect(await steers()).toEqual([
      { scope: 'c', steer_id: 's1', run_id: first.spanId, inject_ms: 2000, dropped: false },
      { scope: 'd', steer_id: 's9', run_id: other.spanId, inject_ms: null, dropped: true },
    ]);
    // A trace of the conversation that grows again leaves one row per steer.
    next.steerEnqueue('s2', 2200);
    await ingestSoFar(t);
    expect((await steers()).map((s) => s['steer_id'])).toEqual(['s1', 's2', 's9']);
    expect(await sqlRows(store, 'SELECT count(*) AS n FROM steer_mark_facts')).toEqual([{ n: 4 }]);
  });

  it("a commit replayed by a run ingested later is a duplicate; pruning the first commit's day forgets it, and the steer its marks began", async () => {
    const t = traces();
    const first = t.run({ conversation: 'c', startMs: 0, endMs: 900, outcome: 'completed' });
    first.tool({ name: 'charge_card', callId: 'n1', startMs: 290, endMs: 310, effect: 'irreversible', idempotencyKey: 'order-42' });
    first.commit({ callId: 'n1', atMs: 300 });
    first.steerEnqueue('s1', 400);
    await ingestSoFar(t);
    expect(await sqlRows(store, 'SELECT count(*) AS n FROM replay_facts')).toEqual([{ n: 0 }]);
    const later = 3 * DAY_MS;
    const resumed = t.run({ conversation: 'c', startMs: later, endMs: later + 900, outcome: 'completed' });
    resumed.tool({ name: 'charge_card', callId: 'n1-replay', startMs: later + 290, endMs: later + 310, effect: 'irreversible', idempotencyKey: 'order-42' });
    resumed.commit({ callId: 'n1-replay', atMs: later + 300 });
    resumed.steerInject('s1', later + 400);
    await ingestSoFar(t);
    expect(await sqlRows(store, 'SELECT run_id, first_run_id, effect_key FROM replay_facts')).toEqual([{ run_id: resumed.spanId, first_run_id: first.spanId, effect_key: 'order-42' }]);
    expect(await sqlRows(store, 'SELECT run_id, dropped FROM steer_facts')).toEqual([{ run_id: first.spanId, dropped: false }]);

    const pruned = await pruneSpanFiles(store, ns(2 * DAY_MS));
    expect(pruned.runs).toBe(1);
    expect(await sqlRows(store, 'SELECT count(*) AS n FROM replay_facts')).toEqual([{ n: 0 }]);
    expect(await sqlRows(store, 'SELECT run_id FROM commit_facts')).toEqual([{ run_id: resumed.spanId }]);
    // The steer is the inject's alone now: no enqueue, so not dropped, and its run the first mark's.
    expect(await sqlRows(store, 'SELECT run_id, enqueued_ns, dropped FROM steer_facts')).toEqual([{ run_id: resumed.spanId, enqueued_ns: null, dropped: false }]);
  });
});
