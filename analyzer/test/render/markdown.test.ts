import { describe, expect, it } from 'vitest';
import { analyze } from '../../index.js';
import { fileURLToPath } from 'node:url';
import { budgetStatus } from '../../cli/budgets.js';
import { markdownCell, markdownTable, markdownText, renderMarkdown } from '../../render/markdown.js';
import { REMEDIES } from '../../render/remedies.js';
import { verdict } from '../../render/verdict.js';
import { traces } from '../../../test/helpers/trace-builder.js';

const golden = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));

describe('the Markdown report', () => {
  it('escapes trace content: no table break, no markup, no link', () => {
    expect(markdownCell('a|b')).toBe('a\\|b');
    expect(markdownCell('<script>x</script>')).toBe('&lt;script&gt;x&lt;/script&gt;');
    expect(markdownCell('[click](http://x)')).toBe('\\[click\\](http://x)');
    expect(markdownCell('two\nlines')).toBe('two lines');
    expect(markdownTable(['a', 'b'], [['1', '2']])).toEqual(['| a | b |', '| --- | --- |', '| 1 | 2 |']);
  });

  it('gives the figures, ghost commits by tool and findings of a real report, hostile names escaped', async () => {
    const t = traces();
    const r = t.run({ startMs: 0, endMs: 900, outcome: 'cancelled' });
    r.cancelRequest(100);
    r.ack(120);
    r.tool({ name: '<img src=x onerror=alert(1)>|x', callId: 'c', startMs: 50, endMs: 300 });
    r.commit({ callId: 'c', atMs: 200 });
    const report = await analyze({ inputs: [t.write()], db: ':memory:' });
    const md = renderMarkdown(report);
    expect(md).toContain('| Ghost commits | 1 (1 irreversible or unknown, 0 inferred) |');
    expect(md).toContain('### Ghost commits by tool');
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;\\|x');
    expect(md).not.toContain('<img');
    expect(md).toContain(report.findings[0]!.trace_id);
  });

  it('leads with the verdict, then the figures that need attention, the others, the findings by kind with their remedy, then the tables', async () => {
    const report = await analyze({ inputs: [`${golden}*.jsonl`], db: ':memory:' });
    const budgets = budgetStatus(report, { maxGhostCommits: 0 });
    const md = renderMarkdown(report, { findings: 3, budgets });
    const lines = md.split('\n');
    expect(lines[0]).toBe('## afterstop leak report');
    // Whole, never cut as a table cell is.
    expect(lines[2]).toBe(`> **Verdict:** ${markdownText(verdict(report, budgets).sentence)}`);
    expect(lines[2]).toMatch(/Budget broken: --max-ghost-commits 0 \(the report has 1\)\.$/);
    const at = (needle: string): number => {
      const i = md.indexOf(needle);
      expect(i, needle).toBeGreaterThanOrEqual(0);
      return i;
    };
    const order = [at('> **Verdict:**'), at('### Needs attention'), at('### Other figures'), at('### Findings by kind'), at('### Ghost commits by tool'), at('### Cancel depth per framework')];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const attention = md.slice(at('### Needs attention'), at('### Other figures'));
    expect(attention).toContain('| Ghost commits | 1 (1 irreversible or unknown, 0 inferred) (over budget --max-ghost-commits 0) |');
    expect(attention).not.toContain('| Runs (cancelled) |');
    expect(md.slice(at('### Other figures'), at('### Findings by kind'))).toContain('| Runs (cancelled) | 9 (5) |');
    expect(md).toContain('At zero: possible ghost commits, orphan processes, unended runs, cleanup errors.');
    // The remedy is afterstop's own Markdown (code spans kept); the rows are escaped trace content.
    expect(md).toContain(`**\`ghost_commit\` × 1**: ${REMEDIES.ghost_commit}`);
    expect(md).toContain('| 1 | 1 | 2026-09-21T14:13:20.900Z | send\\_email |');
  });
});
