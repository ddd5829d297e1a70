import { query } from './queries.js';
import type { Store } from './store.js';

/**
 * The statements that compute the facts kept per run, in order, after ASSIGN_STATEMENTS: computed at ingest for the
 * traces it touched in DuckDB (kept in the store, so that a report over an unchanged store does not redo them),
 * per report in ClickHouse. Each queries/*-facts.sql fills a table of facts; ghost-spans.sql makes the table
 * ghost-commit-facts.sql reads several times (ClickHouse evaluates a CTE again at each reference).
 */
export const FACT_STATEMENTS = [
  'run-facts',
  'cancel-span-facts',
  'tool-call-facts',
  'clock-pair-facts',
  'ghost-spans',
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

/** Of FACT_STATEMENTS, those that fill a table of facts (queries/*-facts.sql), forgotten with their traces and runs. */
export const FACTS = FACT_STATEMENTS.filter((name) => name.endsWith('-facts'));

/**
 * What the steering marks and the commits come to per scope (a conversation's lie in several traces), after
 * FACTS: recomputed in DuckDB for the scopes an ingest or a prune touched (touched_scopes), from the marks
 * and commits of every trace of the scope the store keeps; per report in ClickHouse.
 */
export const SCOPE_FACTS = ['steer-facts', 'replay-facts'] as const;

/**
 * The runs assigned to the spans that do not name theirs (assign-runs.sql), over the two tables it reads several
 * times: the spans of the traces it looks at, and the walk up from each to its nearest run span.
 */
export const ASSIGN_STATEMENTS = ['assign-spans', 'assign-walk', 'assign-runs'] as const;

/**
 * The facts of the traces in touched_traces derived again, from the spans in the working table (an ingest's
 * new spans and the days they fall on, or a migration's every span): the facts they had forgotten, the runs
 * assigned, FACTS, then SCOPE_FACTS for the scopes they touch.
 */
export async function deriveTouchedFacts(store: Store): Promise<void> {
  await store.script(query('forget-facts'));
  for (const name of ASSIGN_STATEMENTS) await store.run(query(name));
  for (const name of FACT_STATEMENTS) await store.run(query(name));
  await store.script(query('note-touched-scopes'));
  for (const name of SCOPE_FACTS) await store.run(query(name));
}
