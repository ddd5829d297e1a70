import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { setup, shutdown, startRun } from 'afterstop';
import { measureOnOff, type OnOff } from './on-off.js';

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
  toolCall: OnOff;
  /** A tool call of a stopped run (its result late: an orphaned call recorded), ns. */
  stoppedToolCall: OnOff;
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
  const measure = (f: (i: number) => Promise<number>): Promise<OnOff> => measureOnOff(on, off, f, iterations, rounds, 20);
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
