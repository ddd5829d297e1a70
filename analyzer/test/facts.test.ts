import { describe, expect, it } from 'vitest';
import { FACTS, SCOPE_FACTS } from '../facts.js';
import { query } from '../queries.js';

/**
 * analyzer/facts.ts: every table a fact query fills is forgotten with its trace when the trace grows
 * (forget-facts.sql) and with its run when the retention forgets the run (prune-facts.sql; run_facts itself
 * goes in prune-run-facts.sql), and every per-scope table when its scope is touched. A fact table added
 * without its DELETEs would double at the next ingest and outlive its runs.
 */
const filled = (name: string): string => {
  const table = /INSERT INTO (\w+) BY NAME/.exec(query(name).sql)?.[1];
  if (table === undefined) throw new Error(`${name}: no INSERT INTO ... BY NAME`);
  return table;
};

describe('facts', () => {
  it.each(FACTS.map((name) => [name, filled(name)]))('%s fills %s, forgotten by trace and with its run', (_name, table) => {
    expect(query('forget-facts').sql).toContain(`DELETE FROM ${table} WHERE trace_id IN (SELECT trace_id FROM touched_traces);`);
    if (table !== 'run_facts') expect(query('prune-facts').sql).toContain(`DELETE FROM ${table} WHERE run_id NOT IN (SELECT run_id FROM run_facts);`);
  });

  it.each(SCOPE_FACTS.map((name) => [name, filled(name)]))('%s fills %s, forgotten for the scopes touched', (_name, table) => {
    for (const by of ['note-touched-scopes', 'prune-facts']) expect(query(by).sql).toContain(`DELETE FROM ${table} WHERE scope IN (SELECT scope FROM touched_scopes);`);
  });
});
