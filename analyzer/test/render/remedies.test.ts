import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addBudgetOptions } from '../../cli/budgets.js';
import { BUDGET_FIGURES } from '../../render/attention.js';
import { findingGroups, REMEDIES } from '../../render/remedies.js';
import { FINDING_KINDS, type Finding } from '../../types.js';

/**
 * Every kind of finding the analyzer can emit has its one-line remedy, and docs/leak-report.md lists the same
 * remedies word for word; every budget of `leak-report` marks a figure.
 */
const read = (relative: string): string => fs.readFileSync(fileURLToPath(new URL(relative, import.meta.url)), 'utf8');

/** The kinds a findings query names: each branch's first column, a literal or a CASE of literals (as findings.test.ts reads it). */
function kindsOf(sql: string): string[] {
  const firstColumns = [...sql.matchAll(/\bSELECT\s+((?:CASE\b[\s\S]*?\bEND)|'[a-z_]+')/g)].map((m) => m[1] ?? '');
  return [...new Set(firstColumns.flatMap((c) => [...c.matchAll(/(?:^|THEN |ELSE )'([a-z_]+)'/g)].map((m) => m[1] ?? '')))].sort();
}

/** The remedy table of docs/leak-report.md: `| \`kind\` | remedy |` rows under its heading. */
function documented(): Map<string, string> {
  const doc = read('../../../docs/leak-report.md');
  const start = doc.indexOf('## Findings and what to do about them');
  expect(start, 'the section is in docs/leak-report.md').toBeGreaterThan(0);
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (.+) \|$/gm)];
  return new Map(rows.map((m) => [m[1] ?? '', m[2] ?? '']));
}

describe('remedies', () => {
  it('every kind the findings queries emit (DuckDB and ClickHouse) and types.ts knows has a remedy, and nothing else has one', () => {
    const kinds = [...FINDING_KINDS].sort();
    expect(kindsOf(read('../../queries/model/findings.sql'))).toEqual(kinds);
    expect(kindsOf(read('../../queries/clickhouse/findings.sql'))).toEqual(kinds);
    expect(Object.keys(REMEDIES).sort()).toEqual(kinds);
    for (const kind of kinds) {
      const remedy = REMEDIES[kind];
      // One line, a sentence, naming something concrete to set or write (a code span).
      expect(remedy, kind).not.toMatch(/\n/);
      expect(remedy, kind).toMatch(/\.$/);
      expect(remedy, kind).toMatch(/`[^`]+`/);
      expect(remedy.length, kind).toBeLessThan(260);
    }
  });

  it('docs/leak-report.md lists every remedy, word for word', () => {
    expect(Object.fromEntries(documented())).toEqual({ ...REMEDIES });
  });

  it('groups findings by kind in the report order, counting all and keeping the worst shown', () => {
    const f = (kind: Finding['kind'], n: number): Finding => ({ kind, severity: 1, trace_id: `t${n}`, run_id: `r${n}`, conversation_id: null, tool: null, time: '', detail: '' });
    const findings = [f('ghost_commit', 1), f('tokens_after_stop', 2), f('ghost_commit', 3), f('orphan_tool_call', 4)];
    const groups = findingGroups({ findings }, 3);
    expect(groups.map((g) => [g.kind, g.count, g.rows.map((r) => r.number)])).toEqual([
      ['ghost_commit', 2, [1, 3]],
      ['tokens_after_stop', 1, [2]],
      ['orphan_tool_call', 1, []],
    ]);
    expect(groups[0]?.remedy).toBe(REMEDIES.ghost_commit);
  });

  it('every budget of leak-report marks the figure it limits', () => {
    const budgets = addBudgetOptions(new Command())
      .options.map((o) => o.long?.replace(/^--/, '') ?? '')
      .filter((name) => name.startsWith('max-'));
    expect(budgets.length).toBeGreaterThan(0);
    expect(Object.keys(BUDGET_FIGURES).sort()).toEqual(budgets.sort());
  });
});
