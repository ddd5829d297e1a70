import { query } from './queries.js';
import type { Store } from './store.js';

/**
 * The facts kept per run (queries/*-facts.sql), after assign-runs: computed at ingest for the traces it
 * touched in DuckDB (kept in the store, so that a report over an unchanged store does not redo them), per
 * report in ClickHouse.
 */
export const FACTS = [
  'run-facts',
  'cancel-span-facts',
  'tool-call-facts',
  'clock-pair-facts',
  'ghost-commit-facts',
  'compensation-facts',
  'steer-mark-facts',
  'commit-facts',
  'model-call-facts',
  'repair-facts',
  'error-span-facts',
  'orphan-process-facts',
  'prevented-commit-facts',
] as const;

/**
 * The statements that compute FACTS, in order: each fact's query, after the statement that makes a table it reads
 * several times (ghost-spans.sql: ClickHouse evaluates a CTE again at each reference).
 */
export const FACT_STATEMENTS: readonly string[] = FACTS.flatMap((name) => (name === 'ghost-commit-facts' ? ['ghost-spans', name] : [name]));

/**
 * What the steering marks and the commits come to per scope (a conversation's lie in several traces), after
 * FACTS: recomputed in DuckDB for the scopes an ingest or a prune touched (touched_scopes), from the marks
 * and commits of every trace of the scope the store keeps; per report in ClickHouse.
 */
export const SCOPE_FACTS = ['steer-facts', 'replay-facts'] as const;

/**
 * The facts of the traces in touched_traces derived again, from the spans in the working table (an ingest's
 * new spans and the days they fall on, or a migration's every span): the facts they had forgotten, the runs
 * assigned, FACTS, then SCOPE_FACTS for the scopes they touch.
 */
export async function deriveTouchedFacts(store: Store): Promise<void> {
  await store.script(query('forget-facts'));
  await store.run(query('assign-runs'));
  for (const name of FACT_STATEMENTS) await store.run(query(name));
  await store.script(query('note-touched-scopes'));
  for (const name of SCOPE_FACTS) await store.run(query(name));
}
