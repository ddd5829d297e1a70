import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { setup, shutdown, startRun } from '../instrumentation/index.js';
import { median, timeIt } from './tool-call.js';

/**
 * What the live metrics (instrumentation/live-metrics.ts) cost a tool call:
 * the same call with a MeterProvider registered (the SDK's, reading into
 * memory) and without one, rounds interleaved in one process. A call of a run
 * never stopped records nothing; a call of a stopped run that ends late
 * records an orphaned call.
 */
export interface LiveMetricsBench {
  iterations: number;
  rounds: number;
  /** A tool call of a run never stopped, ns: metrics on, metrics off. */
  toolCall: { onNs: number; offNs: number; ratio: number };
  /** A tool call of a stopped run (its result late: an orphaned call recorded), ns. */
  stoppedToolCall: { onNs: number; offNs: number; ratio: number };
}

const body = async (): Promise<number> => 42;

export async function benchLiveMetrics(iterations = 20_000, rounds = 11): Promise<LiveMetricsBench> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-bench-metrics-'));
  setup({ tracesDir: dir, serviceName: 'bench', maxQueueSize: 8192 });
  const provider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 60_000 })] });
  const on = (): void => void metrics.setGlobalMeterProvider(provider);
  const off = (): void => metrics.disable();
  const run = startRun({ agentName: 'bench', conversationId: 'bench' });
  const stopped = startRun({ agentName: 'bench', conversationId: 'bench-stopped' });
  await stopped.cancel();
  stopped.acknowledge();
  const call = (i: number): Promise<number> => run.tool({ name: 'lookup', callId: `call_${i}` }, body);
  const lateCall = (i: number): Promise<number> => stopped.tool({ name: 'lookup', callId: `late_${i}` }, body);
  const measure = async (f: (i: number) => Promise<number>): Promise<{ onNs: number; offNs: number; ratio: number }> => {
    const samples = { on: [] as number[], off: [] as number[] };
    for (const mode of [on, off]) {
      mode();
      await timeIt(iterations / 5, f);
    }
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so that drift hits both alike.
      for (const [mode, into] of (r % 2 === 0 ? [[on, samples.on], [off, samples.off]] : [[off, samples.off], [on, samples.on]]) as [() => void, number[]][]) {
        mode();
        into.push(await timeIt(iterations, f));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const onNs = median(samples.on);
    const offNs = median(samples.off);
    return { onNs, offNs, ratio: onNs / offNs };
  };
  const toolCall = await measure(call);
  const stoppedToolCall = await measure(lateCall);
  off();
  run.end();
  stopped.end();
  await provider.shutdown();
  await shutdown();
  fs.rmSync(dir, { recursive: true, force: true });
  return { iterations, rounds, toolCall, stoppedToolCall };
}
