import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestInto } from '../analyze.js';
import { InputError } from '../errors.js';
import { streamStoreQuery, type StoreQueryOptions } from '../store-query.js';
import { LONG_RUN_ID, LONG_RUN_TRACE, writeLongRun } from '../../bench/generate-long-run.js';

/**
 * `afterstop query`'s rows as DuckDB reads them (store-query.ts), over a real store holding a run of 1,000 tool
 * calls: its timeline is some 3,000 rows, more than one of DuckDB's chunks (2,048).
 */
let dir: string;
let options: StoreQueryOptions;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-store-query-'));
  const file = path.join(dir, 'long-run.jsonl');
  writeLongRun(file, 1_000);
  const db = path.join(dir, 'store');
  await ingestInto({ inputs: [file], db });
  options = { db, params: [`runs=${LONG_RUN_TRACE}:${LONG_RUN_ID}`], budgetMs: 1000 };
}, 60_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('streamStoreQuery', () => {
  it('hands over the columns first, then the rows a chunk at a time, each chunk at most 2,048 rows', async () => {
    const calls: (string[] | number)[] = [];
    let rows: Record<string, unknown>[] = [];
    await streamStoreQuery('run-timeline', options, {
      columns: (names) => {
        calls.push([...names]);
      },
      rows: (chunk) => {
        calls.push(chunk.length);
        rows = rows.concat(chunk);
      },
    });
    const [columns, ...sizes] = calls;
    expect(columns).toEqual(expect.arrayContaining(['run_id', 'span_id', 'role', 'start_ns']));
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(2_048);
    expect(rows.length).toBe((sizes as number[]).reduce((a, b) => a + b, 0));
    // Each row keyed by the columns, in their order; every tool call once.
    expect(Object.keys(rows[0]!)).toEqual(columns);
    expect(new Set(rows.filter((r) => r['role'] === 'tool').map((r) => r['span_id'])).size).toBe(1_000);
  });

  it("what the sink throws comes out as it threw it (not the user's values, not the store's disk), and the store is closed", async () => {
    const full = Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' });
    let chunks = 0;
    const failing = streamStoreQuery('run-timeline', options, {
      columns: () => {},
      rows: () => {
        chunks++;
        throw full;
      },
    });
    await expect(failing).rejects.toBe(full);
    expect(chunks).toBe(1);
    // Closed: the store opens again at once (an open one holds its catalog's lock).
    let again = 0;
    await streamStoreQuery('run-timeline', options, {
      columns: () => {},
      rows: (chunk) => {
        again += chunk.length;
      },
    });
    expect(again).toBeGreaterThan(2_048);
  });

  it("a value DuckDB refuses is the user's: an InputError naming the query and --param", async () => {
    const refused = streamStoreQuery('findings', { ...options, params: ['limit=-1'] }, { columns: () => {}, rows: () => {} });
    await expect(refused).rejects.toSatisfy((error: unknown) => InputError.isInstance(error) && /^findings: .*check the --param values/.test(error.message));
  });
});
