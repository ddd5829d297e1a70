/**
 * `npm run bench`: every benchmark, as one table of ratios against baselines
 * measured in the same run. Progress goes to stderr, the table to stdout.
 *   --json FILE  where the results go as JSON (default .bench-out/bench.json)
 *   --doc FILE   also write FILE's table from that JSON, and the JSON beside it
 *                (docs/benchmarks.md: docs/benchmarks.json)
 *   --only RE    run only the sections whose name matches the regular expression RE
 *                (tool-call, live-metrics, guard, sdk-stream, register-startup, install-size, collector-faults,
 *                collector-exit, stop-burst, stop-markers, hung-exit, analyzer, clickhouse, large-inputs); with
 *                --doc, its rows replace those of the doc's JSON, the others stay
 * BENCH_SPANS (default 1000000,10000000) sets the analyzer's sizes, and ClickHouse's (BENCH_CLICKHOUSE_ROUNDS
 * alternating rounds each, default 3).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mergeResults, renderTable, type BenchResults, type BenchRow } from './results.js';
import { ANALYZER_SECTIONS } from './sections/analyzer.js';
import { EXPORT_SECTIONS } from './sections/export.js';
import { INSTRUMENTATION_SECTIONS } from './sections/instrumentation.js';
import { LARGE_INPUT_SECTIONS } from './sections/large-inputs.js';
import type { SectionContext } from './sections/section.js';
import { writeDoc } from './write-doc.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const work = path.resolve(process.env['BENCH_DIR'] ?? '.bench-out');
const jsonFile = path.resolve(arg('--json') ?? path.join(work, 'bench.json'));
const docFile = arg('--doc');
const startedAt = Date.now();
const only = arg('--only');
/** Whether the section `name` runs (all of them without --only). */
const want = (name: string): boolean => only === undefined || new RegExp(only).test(name);

// The sections in the order they run (and their rows are printed).
const context: SectionContext = { work, rows: [] as BenchRow[], details: {}, progress: (what) => void process.stderr.write(`bench: ${what}...\n`), spansMeasured: [] };
for (const section of [...INSTRUMENTATION_SECTIONS, ...EXPORT_SECTIONS, ...ANALYZER_SECTIONS, ...LARGE_INPUT_SECTIONS]) {
  if (want(section.name)) await section.run(context);
}
const { rows, details } = context;

const results: BenchResults = {
  measuredAt: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  spans: context.spansMeasured,
  minutes: (Date.now() - startedAt) / 60_000,
  rows,
  details,
};
fs.mkdirSync(path.dirname(jsonFile), { recursive: true });
fs.writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${renderTable(results)}\n`);
process.stderr.write(`bench: wrote ${jsonFile}\n`);
/** Write into `jsonFile` the doc's record `docJson` with this partial run's rows (mergeResults). */
function mergeInto(jsonFile: string, docJson: string, partial: BenchResults): void {
  if (!fs.existsSync(docJson)) return;
  const earlier = JSON.parse(fs.readFileSync(docJson, 'utf8')) as BenchResults;
  fs.writeFileSync(jsonFile, `${JSON.stringify(mergeResults(earlier, partial, only ?? ''), null, 2)}\n`);
}
if (docFile !== undefined) {
  // A partial run (--only): its rows replace those of the doc's record, the others stay as measured then.
  if (only !== undefined) mergeInto(jsonFile, docFile.replace(/\.md$/, '.json'), results);
  writeDoc(jsonFile, docFile);
}
