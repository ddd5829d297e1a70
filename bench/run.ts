/** `npm run bench`: every benchmark, reported as ratios against a baseline measured in the same run. */
import { benchToolCall } from './tool-call.js';

const fmt = (n: number): string => n.toFixed(0).padStart(8);

const tool = await benchToolCall();
console.log('tool call wrapper (ns per call, median of rounds)');
console.log(`  bare function          ${fmt(tool.bareNs)}`);
console.log(`  bare OpenTelemetry span ${fmt(tool.bareSpanNs)}`);
console.log(`  afterstop run.tool()   ${fmt(tool.afterstopNs)}`);
console.log(`  ratio to bare span      ${tool.ratioToBareSpan.toFixed(2)}x (target <= 1.50x)`);
console.log(`  ratio to bare function  ${tool.ratioToBare.toFixed(1)}x`);
if (process.env['BENCH_JSON']) console.log(JSON.stringify({ toolCall: tool }));
