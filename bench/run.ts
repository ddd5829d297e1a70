/** `npm run bench`: every benchmark, reported as ratios against a baseline measured in the same run. */
import { DEFAULT_MEMORY_LIMIT } from '../analyzer/store.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchAnalyzer } from './analyzer.js';
import { benchCollectorFaults, FAULTS } from './collector-faults.js';
import { benchSdkStream } from './sdk-stream.js';
import { benchHungCollector, benchStopBurst } from './stop-burst.js';
import { benchToolCall, type Figures } from './tool-call.js';

const fmt = (n: number): string => n.toFixed(0).padStart(7);

/** What the bench prints, kept to be written into docs/benchmarks.md with `--doc FILE` (the figures there are this output, not prose). */
const printed: string[] = [];
const out = (line = ''): void => {
  printed.push(line);
  process.stdout.write(`${line}\n`);
};
const docArg = process.argv.indexOf('--doc');
const docFile = docArg >= 0 ? process.argv[docArg + 1] : undefined;
const startedAt = Date.now();

function report(title: string, f: Figures): void {
  out(title);
  out(`  bare function            ${fmt(f.bareNs)} ns`);
  out(`  bare OpenTelemetry span  ${fmt(f.bareSpanNs)} ns`);
  out(`  afterstop run.tool()     ${fmt(f.afterstopNs)} ns`);
  out(`  ratio to the bare span   ${f.ratioToBareSpan.toFixed(2)}x (target <= 1.50x)`);
  out(`  ratio to the bare call   ${f.ratioToBare.toFixed(1)}x`);
}

const tool = await benchToolCall();
out(`one tool call (median of ${tool.rounds} rounds of ${tool.iterations} calls)`);
report('- cost to the caller (spans exported afterwards):', tool.hotPath);
report('- including the export of its spans (the loop yields every 100 calls):', tool.withExport);

const sdk = await benchSdkStream('openai');
const aiSdk = await benchSdkStream('ai-sdk');
for (const [r, what] of [[sdk, 'a streamed model call of 1,000 chunks through the openai client'], [aiSdk, 'an AI SDK streamText turn: a tool call (a POST) and a streamed answer of 1,000 chunks']] as const) {
  out(`\n${what} (median of ${r.rounds} rounds of ${r.callsPerRound} calls)`);
  out(`  bare                       ${r.bareMsPerCall.toFixed(2)} ms`);
  out(`  under afterstop/register   ${r.instrumentedMsPerCall.toFixed(2)} ms`);
  out(`  extra time                 ${(r.extra * 100).toFixed(1)}% (target < 5%)`);
  out(`  client CPU per call        ${r.bareCpuMsPerCall.toFixed(1)} ms bare, ${r.instrumentedCpuMsPerCall.toFixed(1)} ms instrumented: ${(r.cpuExtra * 100).toFixed(1)}% extra`);
}

const faults = await benchCollectorFaults();
out(`\nan agent loop exporting over OTLP/HTTP to a collector in trouble (median of ${faults.rounds} rounds of ${faults.runs} runs; each run a tool call doing a millisecond of I/O and a model call of 20 chunks)`);
out(`  without afterstop          ${faults.bare.msPerRun.toFixed(3)} ms per run, event-loop delay p99 ${faults.bare.p99LoopDelayMs.toFixed(1)} ms, longest ${faults.bare.maxLoopDelayMs.toFixed(1)} ms`);
for (const f of FAULTS) {
  const t = faults.byFault[f];
  out(`  collector ${f.padEnd(8)}         ${t.msPerRun.toFixed(3)} ms per run, ${t.ratioToHealthy.toFixed(2)}x the healthy collector, event-loop delay p99 ${t.p99LoopDelayMs.toFixed(1)} ms, longest ${t.maxLoopDelayMs.toFixed(1)} ms, ${t.dropped} spans dropped`);
}

const burst = await benchStopBurst();
out(`\na burst of Stops: ${burst.runs} concurrent runs cancelled at once, the file exporter, a healthy disk (baseline: every span the app made)`);
out(`  spans written              ${burst.spansWritten} of ${burst.spans} (${((burst.spansWritten / burst.spans) * 100).toFixed(1)}%)`);
out(`  cancel requests written    ${burst.cancelRequestsWritten} of ${burst.cancelRequests} (${((burst.cancelRequestsWritten / burst.cancelRequests) * 100).toFixed(1)}%)`);
out(`  the burst itself           ${burst.workMs.toFixed(0)} ms, heap after ${burst.heapAfterMb.toFixed(1)} MiB`);
for (const runs of [5_000, 100_000]) {
  const hung = await benchHungCollector(runs);
  out(`\n${hung.runs} runs cancelled against a collector that never answers, no shutdown() (baseline: the app's own work)`);
  out(`  the app's work             ${hung.workMs.toFixed(0)} ms`);
  out(`  its exit after the work    ${hung.exitAfterWorkMs.toFixed(0)} ms (${(hung.exitAfterWorkMs / Math.max(1, hung.workMs)).toFixed(1)}x the work), heap after GC ${hung.heapAfterGcMb.toFixed(1)} MiB`);
}

// The analyzer: BENCH_SPANS (default 1,000,000 and 10,000,000) generated spans.
const sizes = (process.env['BENCH_SPANS'] ?? '1000000,10000000').split(',').map(Number);
const work = path.resolve(process.env['BENCH_DIR'] ?? '.bench-out');
const analyzer = sizes.map((n) => {
  process.stderr.write(`bench: analyzer over ${n} spans...\n`);
  return benchAnalyzer(n, work);
});
out(`\nleak-report over generated OTLP/JSON, the store in Parquet (seconds, peak RSS; DuckDB memory_limit ${process.env['AFTERSTOP_MEMORY_LIMIT'] ?? DEFAULT_MEMORY_LIMIT})`);
for (const a of analyzer) {
  out(`- ${a.spans} spans (${a.parquetMb.toFixed(0)} MB of Parquet)`);
  out(`  bare DuckDB read_json      ${a.bareRead.seconds.toFixed(2)} s  ${a.bareRead.peakRssMb.toFixed(0)} MB`);
  out(`  ingest + report (cold)     ${a.cold.seconds.toFixed(2)} s  ${a.cold.peakRssMb.toFixed(0)} MB  ${a.ratioToBareRead.toFixed(2)}x the bare read`);
  out(`  bare scan of the Parquet   ${a.bareScan.seconds.toFixed(2)} s  ${a.bareScan.peakRssMb.toFixed(0)} MB (every column read once)`);
  out(`  report from the store      ${a.warm.seconds.toFixed(2)} s  ${a.warm.peakRssMb.toFixed(0)} MB  ${a.ratioToBareScan.toFixed(2)}x the bare scan (peak target < 2048 MB)`);
}
if (analyzer.length > 1) {
  const [small, large] = [analyzer[0]!, analyzer[analyzer.length - 1]!];
  const perSpan = (m: (a: typeof small) => number) => (a: typeof small): number => m(a) / a.spans;
  const growth = (m: (a: typeof small) => number): string => (perSpan(m)(large) / perSpan(m)(small)).toFixed(2);
  out(`  growth from ${small.spans} to ${large.spans} spans, time per span (1.00 = linear): ingest ${growth((a) => a.cold.seconds)}x, report ${growth((a) => a.warm.seconds)}x`);
}
if (docFile !== undefined) {
  const START = '<!-- bench:start -->';
  const END = '<!-- bench:end -->';
  const text = fs.readFileSync(docFile, 'utf8');
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${docFile} has no ${START} / ${END} markers`);
  const header = `Measured ${new Date().toISOString().slice(0, 10)} on Node ${process.version}, ${os.cpus().length} CPUs, by \`npm run bench -- --doc ${docFile}\`${process.env['BENCH_SPANS'] ? ` with BENCH_SPANS=${process.env['BENCH_SPANS']}` : ''} (${((Date.now() - startedAt) / 60_000).toFixed(0)} min). Its output, as printed:`;
  fs.writeFileSync(docFile, `${text.slice(0, a + START.length)}\n${header}\n\n\`\`\`\n${printed.join('\n').replace(/^\n+/, '')}\n\`\`\`\n${text.slice(b)}`);
  process.stderr.write(`bench: wrote ${docFile}\n`);
}
if (process.env['BENCH_JSON']) out(JSON.stringify({ toolCall: tool, sdkStream: sdk, aiSdkStream: aiSdk, collectorFaults: faults, analyzer }));
