/**
 * The scorecard's summary for the README: a row per framework of the full
 * table (docs/scorecard.md), derived from it, so that the two cannot drift
 * (test/scorecard/summary.test.ts).
 */
export function scorecardSummary(full: string): string {
  const rows = full
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| framework |'))
    .map((l) => l.slice(2, -2).split(' | '));
  const byFramework = new Map<string, { depths: number[]; agree: number; total: number }>();
  for (const cells of rows) {
    const framework = cells[0] ?? '';
    const depth = Number(cells[2]);
    const entry = byFramework.get(framework) ?? { depths: [], agree: 0, total: 0 };
    if (Number.isFinite(depth)) entry.depths.push(depth);
    entry.total++;
    if (cells[cells.length - 1]?.startsWith('yes')) entry.agree++;
    byFramework.set(framework, entry);
  }
  const all = [...byFramework.values()];
  const agree = all.reduce((n, e) => n + e.agree, 0);
  const total = all.reduce((n, e) => n + e.total, 0);
  const range = (d: number[]): string => (d.length === 0 ? '–' : Math.min(...d) === Math.max(...d) ? String(d[0]) : `${Math.min(...d)}–${Math.max(...d)}`);
  return [
    `${agree} of ${total} measurements agree with the ground truth. Cancel depth (METRICS.md §8): 0 the loop went on after Stop … 4 everything stopped and nothing landed after it.`,
    '',
    '| framework | Stop moments | cancel depth | afterstop = truth |',
    '|---|---|---|---|',
    ...[...byFramework.entries()].map(([f, e]) => `| ${f} | ${e.total} | ${range(e.depths)} | ${e.agree} of ${e.total} |`),
    '',
  ].join('\n');
}
