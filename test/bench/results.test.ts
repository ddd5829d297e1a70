import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { growthRow, mergeResults, ratioRow, renderMarkdown, renderTable, valueRow, withResults, type BenchResults } from '../../bench/results.js';

const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const base = { work: 'w', unit: 'ms' as const, baseline: 'bare', peakRssMb: null };
const results = (rows: BenchResults['rows']): BenchResults => ({ measuredAt: '2026-12-02T00:00:00.000Z', node: 'v24.0.0', cpus: 2, spans: [1000], minutes: 1, rows, details: {} });

describe('the bench results', () => {
  it('a ratio row is the value over its baseline, met only within its target', () => {
    expect(ratioRow({ ...base, id: 'a', value: 12, baselineValue: 10 }, 1.3)).toMatchObject({ ratio: 1.2, target: '≤ 1.3×', met: true });
    expect(ratioRow({ ...base, id: 'b', value: 14, baselineValue: 10 }, 1.3)).toMatchObject({ ratio: 1.4, met: false });
    expect(ratioRow({ ...base, id: 'c', value: 14, baselineValue: 10 }, null)).toMatchObject({ target: null, met: null });
    expect(valueRow({ ...base, id: 'd', value: 6, baselineValue: 3 }, { text: '≤ 5 ms', met: (v) => v <= 5 })).toMatchObject({ ratio: 2, met: false });
  });

  it('a growth row is time per span at the larger size over the smaller: linear is 1.00, met up to 1.10', () => {
    const linear = growthRow('g', 'work', { spans: 1_000, seconds: 2 }, { spans: 10_000, seconds: 20 });
    expect(linear).toMatchObject({ value: 1, met: true, work: 'work: time per span at 10,000 over 1,000 (1.00 = linear)' });
    expect(growthRow('g', 'work', { spans: 1_000, seconds: 2 }, { spans: 10_000, seconds: 30 })).toMatchObject({ value: 1.5, met: false });
  });

  it('renders one table, every row in it, columns aligned, and Markdown with its cells escaped', () => {
    const r = results([ratioRow({ ...base, id: 'a', work: 'short', value: 12, baselineValue: 10 }, 1.3), ratioRow({ ...base, id: 'b', work: 'a much longer | piped name', value: 30, baselineValue: 10 }, 2)]);
    const lines = renderTable(r).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain('1.20×');
    expect(lines[3]).toContain('NOT MET');
    expect(lines[2]!.indexOf('12.0 ms')).toBe(lines[3]!.indexOf('30.0 ms'));
    // Below a millisecond (CPU per run), three decimals: 0.155 ms is not rounded to 0.2.
    expect(renderTable(results([ratioRow({ ...base, id: 'c', value: 0.155, baselineValue: 0.075 }, null)]))).toContain('0.155 ms');
    // Paired rounds: the middle half of their ratios beside the ratio, in both tables; none shown without it.
    const paired = results([ratioRow({ ...base, id: 'p', value: 12, baselineValue: 10, spread: { low: 1.05, high: 1.4 } }, 1.1)]);
    expect(renderTable(paired)).toContain('1.20× (1.05–1.40×)');
    expect(renderMarkdown(paired, 'x.json')).toContain('| 1.20× (1.05–1.40×) |');
    expect(lines[2]).not.toContain('(');
    const md = renderMarkdown(r, 'x.json');
    expect(md).toContain('a much longer \\| piped name');
    expect(md.split('\n').filter((l) => l.startsWith('|'))).toHaveLength(4);
  });

  it('a partial run (--only) replaces its rows by id, puts a new one after the row it follows, keeps the others, and the Markdown says which rows were measured again and when', () => {
    const row = (id: string, value: number) => ratioRow({ ...base, id, value, baselineValue: 10 }, null);
    const earlier = results([row('a', 12), row('b', 30), row('z', 1)]);
    const partial = { ...results([row('new-first', 7), row('b', 20), row('c', 5), row('d', 6)]), measuredAt: '2026-12-06T00:00:00.000Z' };
    const merged = mergeResults(earlier, partial, 'stop-markers');
    expect(merged.rows.map((r) => [r.id, r.value])).toEqual([
      ['a', 12],
      ['b', 20],
      // In the partial run's order, after the row it printed before them, not after the rows of other sections.
      ['c', 5],
      ['d', 6],
      ['z', 1],
      // A new row the partial run printed first has no row to follow: at the end.
      ['new-first', 7],
    ]);
    expect(merged.measuredAt).toBe(earlier.measuredAt);
    expect(renderMarkdown(merged, 'x.json')).toContain('Measured again 2026-12-06 on Node v24.0.0 (`--only stop-markers`): `new-first`, `b`, `c`, `d`.');
  });

  it('docs/benchmarks.md shows what docs/benchmarks.json holds (npm run bench -- --doc docs/benchmarks.md writes both)', () => {
    const doc = fs.readFileSync(`${docs}benchmarks.md`, 'utf8');
    const recorded = JSON.parse(fs.readFileSync(`${docs}benchmarks.json`, 'utf8')) as BenchResults;
    expect(recorded.rows.length).toBeGreaterThan(10);
    expect(withResults(doc, recorded, 'benchmarks.json')).toBe(doc);
  });
});
