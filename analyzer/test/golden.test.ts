import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyze } from '../index.js';

/**
 * The golden traces (test/fixtures/golden, the project's copy of the contract's fixtures): each must give
 * exactly the figures of its .expected.json. Every listed key must match
 * (numbers to 1e-9); cancel_depth levels not listed must be 0.
 */
const dir = fileURLToPath(new URL('../../test/fixtures/golden/', import.meta.url));
const cases = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

function compare(actual: unknown, expected: unknown, path: string, problems: string[]): void {
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') {
      problems.push(`${path}: expected an object, got ${JSON.stringify(actual)}`);
      return;
    }
    for (const [key, value] of Object.entries(expected)) compare((actual as Record<string, unknown>)[key], value, `${path}.${key}`, problems);
    return;
  }
  if (typeof expected === 'number' && typeof actual === 'number') {
    if (Math.abs(actual - expected) > 1e-9) problems.push(`${path}: expected ${expected}, got ${actual}`);
    return;
  }
  if (actual !== expected) problems.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

describe('golden traces', () => {
  it('are all here', () => {
    expect(cases).toHaveLength(6);
  });

  for (const file of cases) {
    it(`${file} gives the figures of its .expected.json`, async () => {
      const expected = JSON.parse(fs.readFileSync(`${dir}${file.replace('.jsonl', '.expected.json')}`, 'utf8')) as {
        totals: Record<string, unknown> & { cancel_depth?: Record<string, number> };
      };
      const report = await analyze({ inputs: [`${dir}${file}`], db: ':memory:', pricesFile: `${dir}prices.json` });
      const problems: string[] = [];
      compare(report.totals, expected.totals, 'totals', problems);
      if (expected.totals.cancel_depth) {
        for (const level of ['0', '1', '2', '3', '4'] as const) {
          if (!(level in expected.totals.cancel_depth)) compare(report.totals.cancel_depth[level], 0, `totals.cancel_depth.${level}`, problems);
        }
      }
      expect(problems).toEqual([]);
      expect(report.input.skipped).toEqual([]);
    });
  }

  it('all together give the sum of their runs, each group apart', async () => {
    const report = await analyze({ inputs: [dir], db: ':memory:', pricesFile: `${dir}prices.json` });
    expect(report.totals.runs).toBe(9);
    expect(report.totals.cancelled_runs).toBe(5);
    expect(report.totals.ghost_commits).toBe(1);
    expect(report.totals.replay_duplicates).toBe(1);
    expect(report.totals.ghost_tax_usd).toBeCloseTo(0.0063, 12);
    expect(report.groups.map((g) => g.service).sort()).toEqual(['billing-graph', 'checkout-agent']);
    const billing = report.groups.find((g) => g.service === 'billing-graph')!;
    expect(billing.runs).toBe(2);
    expect(billing.replay_duplicates).toBe(1);
    expect(report.groups.reduce((sum, g) => sum + g.runs, 0)).toBe(report.totals.runs);
  });
});
