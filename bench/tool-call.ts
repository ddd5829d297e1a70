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
export interface ToolCallBench {
  iterations: number;
  rounds: number;
  bareNs: number;
  bareSpanNs: number;
  afterstopNs: number;
  /** afterstop ÷ bare span: the target is at most 1.5. */
  ratioToBareSpan: number;
  ratioToBare: number;
}

async function body(): Promise<number> {
  return 42;
}

async function timeIt(iterations: number, call: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await call(i);
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

  const samples = { bare: [] as number[], bareSpan: [] as number[], afterstop: [] as number[] };
  // Warm up every path, then interleave rounds so that drift hits all three alike.
  for (const f of [bare, bareSpan, wrapped]) await timeIt(iterations / 5, f);
  for (let r = 0; r < rounds; r++) {
    samples.bare.push(await timeIt(iterations, bare));
    samples.bareSpan.push(await timeIt(iterations, bareSpan));
    samples.afterstop.push(await timeIt(iterations, wrapped));
    // Let the export queue drain between rounds, as an app's idle time would.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  run.end();
  await shutdown();
  fs.rmSync(dir, { recursive: true, force: true });
  const bareNs = median(samples.bare);
  const bareSpanNs = median(samples.bareSpan);
  const afterstopNs = median(samples.afterstop);
  return {
    iterations,
    rounds,
    bareNs,
    bareSpanNs,
    afterstopNs,
    ratioToBareSpan: afterstopNs / bareSpanNs,
    ratioToBare: afterstopNs / bareNs,
  };
}
