/** `npm run bench`: every benchmark, reported as ratios against a baseline measured in the same run. */
import { benchToolCall, type Figures } from './tool-call.js';

const fmt = (n: number): string => n.toFixed(0).padStart(7);

function report(title: string, f: Figures): void {
  console.log(title);
  console.log(`  bare function            ${fmt(f.bareNs)} ns`);
  console.log(`  bare OpenTelemetry span  ${fmt(f.bareSpanNs)} ns`);
  console.log(`  afterstop run.tool()     ${fmt(f.afterstopNs)} ns`);
  console.log(`  ratio to the bare span   ${f.ratioToBareSpan.toFixed(2)}x (target <= 1.50x)`);
  console.log(`  ratio to the bare call   ${f.ratioToBare.toFixed(1)}x`);
}

const tool = await benchToolCall();
console.log(`one tool call (median of ${tool.rounds} rounds of ${tool.iterations} calls)`);
report('- cost to the caller (spans exported afterwards):', tool.hotPath);
report('- including the export of its spans (the loop yields every 100 calls):', tool.withExport);
if (process.env['BENCH_JSON']) console.log(JSON.stringify({ toolCall: tool }));
