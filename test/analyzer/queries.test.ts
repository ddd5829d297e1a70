import { describe, expect, it } from 'vitest';
import { isReadOnly, listQueries, query } from '../../analyzer/queries.js';

/** `afterstop query` runs only queries that change nothing. */
describe('isReadOnly', () => {
  it('is true for the report’s aggregates, false for every query that writes, even one that returns rows', () => {
    for (const name of ['runs', 'findings', 'timeline', 'cancel-latency-histogram', 'report-span-files', 'span-count']) expect(isReadOnly(query(name)), name).toBe(true);
    for (const name of ['replace-span-files', 'prune-span-files', 'prune-run-facts', 'write-span-files', 'store-files', 'run-facts', 'assign-runs', 'prepare-runs', 'clear-working-spans'])
      expect(isReadOnly(query(name)), name).toBe(false);
  });

  it('lists no query whose statement is not a SELECT', () => {
    for (const { file, query: q } of listQueries().filter((l) => isReadOnly(l.query))) {
      expect(q.sql.replace(/^\s*--.*$/gm, '').trimStart(), file).toMatch(/^(SELECT|WITH)\b/i);
    }
  });
});
