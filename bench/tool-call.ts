import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { setup, shutdown, startRun } from '../instrumentation/index.js';

/**
 * The cost of one wrapped tool call, against the bare function and against a
 * bare OpenTelemetry span around it, in the same process and pipeline.
 */
export interface Figures {
  bareNs: number;
  bareSpanNs: number;
  afterstopNs: number;
  /** afterstop ÷ bare span: the target is at most 1.5. */
  ratioToBareSpan: number;
  ratioToBare: number;
}

export interface ToolCallBench {
  iterations: number;
  rounds: number;
  /** What a call costs its caller: the export of its spans happens later, off the measured loop. */
  hotPath: Figures;
  /** The loop yields every 100 calls, so the exporter's work (serialising, writing) is inside the measured time. */
  withExport: Figures;
}

async function body(): Promise<number> {
  return 42;
}

/**
 * ns per call. With `yieldEvery`, the loop gives the event loop a turn every
 * so many calls, as a real app does between I/O: the exporter then runs
 * inside the measured time, so its cost per span counts too.
 */
async function timeIt(iterations: number, call: (i: number) => Promise<unknown>, yieldEvery = 0): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    await call(i);
    if (yieldEvery > 0 && i % yieldEvery === yieldEvery - 1) await new Promise((resolve) => setImmediate(resolve));
  }
  return ((performance.now() - start) * 1e6) / iterations;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export async function benchToolCall(iterations = 50_000, rounds = 11): Promise<ToolCallBench> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-'));
  setup({ tracesDir: dir, serviceName: 'bench', maxQueueSize: 8192 });
  const run = startRun({ agentName: 'bench', conversationId: 'bench' });
  const tracer = trace.getTracer('bench');

  const bare = (): Promise<number> => body();
  const bareSpan = (i: number): Promise<number> =>
    tracer.startActiveSpan(
      'execute_tool lookup',
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': `call_${i}` } },
      async (span) => {
        try {
          return await body();
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  const wrapped = (i: number): Promise<number> => run.tool({ name: 'lookup', callId: `call_${i}` }, body);

  const measure = async (yieldEvery: number): Promise<Figures> => {
    const samples = { bare: [] as number[], bareSpan: [] as number[], afterstop: [] as number[] };
    // Warm up every path, then interleave rounds so that drift hits all three alike.
    for (const f of [bare, bareSpan, wrapped]) await timeIt(iterations / 5, f, yieldEvery);
    for (let r = 0; r < rounds; r++) {
      samples.bare.push(await timeIt(iterations, bare, yieldEvery));
      samples.bareSpan.push(await timeIt(iterations, bareSpan, yieldEvery));
      samples.afterstop.push(await timeIt(iterations, wrapped, yieldEvery));
      // Let the export queue drain between rounds, as an app's idle time would.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const bareNs = median(samples.bare);
    const bareSpanNs = median(samples.bareSpan);
    const afterstopNs = median(samples.afterstop);
    return { bareNs, bareSpanNs, afterstopNs, ratioToBareSpan: afterstopNs / bareSpanNs, ratioToBare: afterstopNs / bareNs };
  };
  const hotPath = await measure(0);
  const withExport = await measure(100);
  run.end();
  await shutdown();
  fs.rmSync(dir, { recursive: true, force: true });
  return { iterations, rounds, hotPath, withExport };
}
