import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isReadOnly, listQueries, query } from '../queries.js';

/** `afterstop query` runs only queries that change nothing. */
describe('isReadOnly', () => {
  it('is true for the report’s aggregates, false for every query that writes, even one that returns rows', () => {
    for (const name of ['runs', 'findings', 'timeline', 'cancel-latency-histogram', 'report-span-files', 'span-count']) expect(isReadOnly(query(name)), name).toBe(true);
    for (const name of ['replace-span-files', 'prune-span-files', 'prune-run-facts', 'write-span-files', 'store-files', 'run-facts', 'assign-runs', 'prepare-runs', 'clear-working-spans'])
      expect(isReadOnly(query(name)), name).toBe(false);
  });

  it('offers no query that writes: none it calls read-only holds a statement that changes anything, anywhere in its text', () => {
    // Independent of isReadOnly's own test (the first word): any writing keyword in the SQL, comments and strings aside.
    const WRITES = /\b(INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|COPY|ATTACH|DETACH|EXPORT|IMPORT|TRUNCATE|VACUUM|CHECKPOINT|INSTALL|LOAD|SET|PRAGMA)\b/i;
    const code = (sql: string): string => sql.replace(/--.*$/gm, '').replace(/'(?:[^']|'')*'/g, "''");
    const offered = listQueries().filter((l) => isReadOnly(l.query));
    expect(offered.length).toBeGreaterThan(10);
    for (const { file, query: q } of offered) expect(code(q.sql), file).not.toMatch(WRITES);
    // And the check can tell: every query that writes has such a keyword, and none of them is offered.
    const writing = listQueries().filter((l) => WRITES.test(code(l.query.sql)));
    expect(writing.length).toBeGreaterThan(10);
    for (const { file, query: q } of writing) expect(isReadOnly(q), file).toBe(false);
  });
});

describe('every query has a test', () => {
  it("each file of queries/ is named by a test of the analyzer (test/) (a ClickHouse rendering is run by the engines' equivalence test)", () => {
    const testDir = fileURLToPath(new URL('./', import.meta.url));
    const tests = (fs.readdirSync(testDir, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => fs.readFileSync(path.join(testDir, f), 'utf8'))
      .join('\n');
    // Named: run by its name (query('x'), rows('x')), or the subject of a test file of its own.
    const own = (file: string): boolean => fs.existsSync(path.join(testDir, 'queries', `${file}.test.ts`));
    const unnamed = listQueries()
      .map((q) => q.file)
      .filter((file) => !tests.includes(`'${file}'`) && !own(file));
    expect(unnamed).toEqual([]);
  });
});

describe('a query is named after its file', () => {
  it("each query's -- @name is its file's name with _ for - (profile:ingest names a Store.typedRows statement, given by file, so)", () => {
    const dir = fileURLToPath(new URL('../queries/', import.meta.url));
    const files = [
      ...listQueries().map((l) => l.file),
      ...fs
        .readdirSync(path.join(dir, 'clickhouse'))
        .filter((f) => f.endsWith('.sql'))
        .map((f) => `clickhouse/${f.slice(0, -'.sql'.length)}`),
    ];
    expect(files.length).toBeGreaterThan(100);
    const misnamed = files.filter((file) => query(file).name !== path.basename(file).replaceAll('-', '_'));
    expect(misnamed).toEqual([]);
  });
});
