/**
 * What `npm run bench` measured, as one table: each row a measurement, the
 * baseline measured in the same run, their ratio, the target and whether it
 * is met. Written as JSON (the record); the terminal table and the docs'
 * table are both rendered from it, so the docs' figures are that file's.
 */
import type { Spread } from './child.js';

export type Unit = 'ns' | 'ms' | 's' | 'MB' | 'spans' | 'x';

export interface BenchRow {
  /** Stable key (the docs and tools find a row by it). */
  id: string;
  /** What was measured. */
  work: string;
  value: number;
  unit: Unit;
  /** What it is compared with, measured in the same run. */
  baseline: string;
  baselineValue: number | null;
  /** value ÷ baselineValue (null without a baseline). */
  ratio: number | null;
  /** When the rounds were paired (each round's side beside its baseline): the middle half of their ratios. */
  spread?: Spread;
  /** The target as said (`≤ 1.3×`, `≤ 5 ms`), and whether this run met it (null: no target). */
  target: string | null;
  met: boolean | null;
  /** Peak resident memory of the process that did the work (null: measured in the bench's own process). */
  peakRssMb: number | null;
}

export interface BenchResults {
  measuredAt: string;
  node: string;
  cpus: number;
  /** The span counts the analyzer rows were measured at. */
  spans: number[];
  minutes: number;
  rows: BenchRow[];
  /** Every figure each benchmark returned, as it returned it. */
  details: Record<string, unknown>;
  /** Rows measured again later by a partial run (`--only`), with when. */
  updates?: { measuredAt: string; node: string; only: string; rows: string[] }[];
}

/**
 * `earlier` with the rows and details of a partial run (`--only RE`): a row of `partial` replaces the row of
 * the same id; a new one goes after the row the partial run printed before it (at the end when it has none),
 * so that it sits in its section; the update is recorded (renderMarkdown says which rows and when).
 */
export function mergeResults(earlier: BenchResults, partial: BenchResults, only: string): BenchResults {
  const rows = [...earlier.rows];
  let previous: string | undefined;
  for (const row of partial.rows) {
    const at = rows.findIndex((r) => r.id === row.id);
    const after = previous === undefined ? -1 : rows.findIndex((r) => r.id === previous);
    if (at >= 0) rows[at] = row;
    else if (after >= 0) rows.splice(after + 1, 0, row);
    else rows.push(row);
    previous = row.id;
  }
  const update = { measuredAt: partial.measuredAt, node: partial.node, only, rows: partial.rows.map((r) => r.id) };
  return { ...earlier, rows, details: { ...earlier.details, ...partial.details }, updates: [...(earlier.updates ?? []), update] };
}

type Measured = Omit<BenchRow, 'ratio' | 'target' | 'met'>;

const ratioOf = (row: Measured): number | null => (row.baselineValue === null || row.baselineValue === 0 ? null : row.value / row.baselineValue);

/** A row with a ratio target: met when value ÷ baseline is at most `max`. */
export function ratioRow(row: Measured, max: number | null): BenchRow {
  const ratio = ratioOf(row);
  return { ...row, ratio, target: max === null ? null : `≤ ${max}×`, met: max === null || ratio === null ? null : ratio <= max };
}

/** A row with a target on the value itself (`≤ 5 ms`, `< 1024 MB`). */
export function valueRow(row: Measured, target: { text: string; met: (value: number) => boolean }): BenchRow {
  return { ...row, ratio: ratioOf(row), target: target.text, met: target.met(row.value) };
}

/**
 * A row of growth: time per span at the larger size over the smaller (1.00 = linear), `seconds` of each measured
 * at `spans`. Target ≤ 1.10×.
 */
export function growthRow(id: string, what: string, small: { spans: number; seconds: number }, large: { spans: number; seconds: number }): BenchRow {
  const n = (x: number): string => x.toLocaleString('en-US');
  return valueRow(
    {
      id,
      work: `${what}: time per span at ${n(large.spans)} over ${n(small.spans)} (1.00 = linear)`,
      value: large.seconds / large.spans / (small.seconds / small.spans),
      unit: 'x',
      baseline: `per span at ${n(small.spans)}`,
      baselineValue: null,
      peakRssMb: null,
    },
    { text: '≤ 1.10× (linear)', met: (v) => v <= 1.1 },
  );
}

const number = (n: number, unit: Unit): string => {
  if (unit === 's') return `${n.toFixed(2)} s`;
  // Below a millisecond (CPU time per run), three decimals: one would round 0.155 ms to 0.2.
  if (unit === 'ms') return n < 1 ? `${n.toFixed(3)} ms` : `${n.toFixed(1)} ms`;
  if (unit === 'ns') return `${n.toFixed(0)} ns`;
  if (unit === 'x') return `${n.toFixed(2)}×`;
  if (unit === 'MB') return `${n.toFixed(0)} MB`;
  return `${n.toFixed(0)}`;
};

/** The cells of a row, as both tables show them. */
function cells(r: BenchRow): string[] {
  return [
    r.work,
    number(r.value, r.unit),
    r.baselineValue === null ? r.baseline : `${number(r.baselineValue, r.unit)} ${r.baseline}`,
    r.ratio === null ? '—' : `${r.ratio.toFixed(2)}×${r.spread === undefined ? '' : ` (${r.spread.low.toFixed(2)}–${r.spread.high.toFixed(2)}×)`}`,
    r.target ?? '—',
    r.met === null ? '—' : r.met ? 'met' : 'NOT MET',
    r.peakRssMb === null ? '—' : `${r.peakRssMb.toFixed(0)} MB`,
  ];
}

const HEADER = ['work', 'measured', 'baseline (same run)', "ratio (paired rounds' middle half)", 'target', 'status', 'peak RSS'];

/** The table for a terminal: columns padded to their widest cell. */
export function renderTable(results: BenchResults): string {
  const rows = [HEADER, ...results.rows.map(cells)];
  const widths = HEADER.map((_h, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c + ' '.repeat(widths[i]! - [...c].length))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

const escapeCell = (c: string): string => c.replace(/\|/g, '\\|');

/** The table in Markdown, with the run it comes from. */
export function renderMarkdown(results: BenchResults, source: string): string {
  const head = `Measured ${results.measuredAt.slice(0, 10)} on Node ${results.node}, ${results.cpus} CPUs, analyzer at ${results.spans.map((n) => n.toLocaleString('en-US')).join(' and ')} spans (${results.minutes.toFixed(0)} min); generated from \`${source}\` by \`npm run bench -- --doc\`.`;
  const updates = (results.updates ?? []).map((u) => ` Measured again ${u.measuredAt.slice(0, 10)} on Node ${u.node} (\`--only ${u.only}\`): ${u.rows.map((id) => `\`${id}\``).join(', ')}.`).join('');
  const table = [HEADER, HEADER.map(() => '---'), ...results.rows.map(cells)].map((r) => `| ${r.map(escapeCell).join(' | ')} |`);
  return `${head}${updates}\n\n${table.join('\n')}\n`;
}

export const DOC_START = '<!-- bench:start -->';
export const DOC_END = '<!-- bench:end -->';

/** `doc` with the text between its bench markers replaced by the table of `results`. */
export function withResults(doc: string, results: BenchResults, source: string): string {
  const a = doc.indexOf(DOC_START);
  const b = doc.indexOf(DOC_END);
  if (a < 0 || b < a) throw new Error(`no ${DOC_START} / ${DOC_END} markers`);
  return `${doc.slice(0, a + DOC_START.length)}\n${renderMarkdown(results, source)}${doc.slice(b)}`;
}
