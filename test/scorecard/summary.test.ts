import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scorecardSummary } from '../../scorecard/summary.js';

/** The README's scorecard summary is the summary of docs/scorecard.md's table (npm run scorecard -- --update both). */
const read = (file: string): string => fs.readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');
const between = (text: string, start: string, end: string): string => text.slice(text.indexOf(start) + start.length, text.indexOf(end)).trim();

describe('the scorecard summary', () => {
  it("the README's is derived from the full table, not written apart", () => {
    const table = between(read('docs/scorecard.md'), '<!-- scorecard:start -->', '<!-- scorecard:end -->');
    expect(between(read('README.md'), '<!-- scorecard-summary:start -->', '<!-- scorecard-summary:end -->')).toBe(scorecardSummary(table).trim());
  });

  it("counts each framework's Stop moments, its depths and its agreement with the truth", () => {
    const table = '| framework | Stop | depth | afterstop = truth |\n|---|---|---|---|\n| A | m | 4 | yes |\n| A | n | 0 | no (a limit) |\n| B | m | 3 | yes |\n';
    expect(scorecardSummary(table)).toContain('2 of 3 measurements agree');
    expect(scorecardSummary(table)).toContain('| A | 2 | 0–4 | 1 of 2 |\n| B | 1 | 3 | 1 of 1 |');
  });
});
