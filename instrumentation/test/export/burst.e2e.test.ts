import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { distModule, lastJson, runModule, tempCwd } from '../../../test/helpers/child.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';

/**
 * A burst of Stops: thousands of concurrent runs cancelled at once, with a healthy exporter (the file
 * exporter on a healthy disk, a local OTLP/HTTP collector that answers at once). The burst fills the queue
 * before any export can run. Every Stop marker (`afterstop.cancel.request`) must still reach the files or
 * the collector: it is the last thing the queue evicts (span-queue.ts). What else is dropped is counted.
 */
const INDEX = distModule('instrumentation/index.js');
const folder = tempCwd();
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const exportStats = `process.on('exit', () => console.log(JSON.stringify(exportStats())));`;
/** Every run cancelled in the same tick, each then acknowledged and ended: 4 spans a run. */
const awaited = (runs: number, setup: string) => `
  import { setup, startRun, shutdown, exportStats } from ${JSON.stringify(INDEX)};
  setup(${setup});
  const runs = Array.from({ length: ${runs} }, (_, i) => startRun({ agentName: 'support', conversationId: 'c' + i }));
  await Promise.all(runs.map((r) => r.cancel({ source: 'user' }).then(() => { r.acknowledge(); r.end(); })));
  ${exportStats}
  await shutdown();
`;
/**
 * The attack's shape: each run has a tool call in flight; all are cancelled in the same tick; the tools
 * end 5 ms later, then every run is acknowledged and ended: 6 spans a run, most of them in two ticks.
 */
const withTools = (runs: number, setup: string) => `
  import { setup, startRun, shutdown, exportStats } from ${JSON.stringify(INDEX)};
  setup(${setup});
  const runs = Array.from({ length: ${runs} }, (_, i) => startRun({ agentName: 'support', conversationId: 'c' + i }));
  const tools = runs.map((r, i) => r.tool({ name: 'lookup', callId: 'k' + i }, async () => { await new Promise((res) => setTimeout(res, 5)); return i; }).catch(() => {}));
  await Promise.all(runs.map((r) => r.cancel({ source: 'user' })));
  await Promise.all(tools);
  for (const r of runs) { r.acknowledge(); r.end(); }
  ${exportStats}
  await shutdown();
`;

interface Stats {
  exported: number;
  dropped: number;
  failedExports: number;
}
const countBy = (spans: { name: string; spanId: string }[]) => (name: string) => new Set(spans.filter((s) => s.name === name).map((s) => s.spanId)).size;

describe('a burst of Stops', () => {
  it('10,000 runs cancelled at once, the file exporter: every span written, every cancel request among them, nothing dropped', async () => {
    const result = await runModule(awaited(10_000, "{ exporter: 'file', tracesDir: 'traces', maxQueueSize: 4096 }"), { cwd: folder(), timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    expect(lastJson<Stats>(result).dropped).toBe(0);
    const { spans, skipped } = await readTraces(path.join(folder(), 'traces'));
    expect(skipped).toEqual([]);
    const count = countBy(spans);
    expect(count('afterstop.cancel.request')).toBe(10_000);
    expect(count('afterstop.cancel.ack')).toBe(10_000);
    expect(count('invoke_agent support')).toBe(10_000);
  }, 90_000);

  it('10,000 runs with a tool in flight cancelled at once, the file exporter: every Stop marker written (5,103 were lost to the pending-lines limit); what else was dropped is counted', async () => {
    const result = await runModule(withTools(10_000, "{ exporter: 'file', tracesDir: 'traces' }"), { cwd: folder(), timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    const stats = lastJson<Stats>(result);
    const { spans, skipped } = await readTraces(path.join(folder(), 'traces'));
    expect(skipped).toEqual([]);
    const count = countBy(spans);
    expect(count('afterstop.cancel.request')).toBe(10_000);
    // The queue and the lines waiting for the disk are bounded: what did not fit is counted, none of it lost silently.
    expect(stats.failedExports).toBe(0);
    expect(new Set(spans.map((s) => s.spanId)).size + stats.dropped).toBe(60_000);
    console.log(`file exporter, 10,000 Stops with tools: Stop markers kept 10,000 of 10,000; other spans dropped ${stats.dropped} of 50,000`);
  }, 90_000);

  for (const runs of [2_000, 10_000]) {
    it(`${runs.toLocaleString('en-US')} runs with a tool in flight cancelled at once, a healthy OTLP/HTTP collector: every Stop marker received${runs === 2_000 ? ', and every other span' : ''}`, async () => {
      const service = `burst-${runs}`;
      const result = await runModule(withTools(runs, `{ serviceName: '${service}' }`), { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, timeoutMs: 60_000 });
      expect(result.code, result.stderr).toBe(0);
      const stats = lastJson<Stats>(result);
      const spans = receiver.spans().filter((s) => s.resource['service.name'] === service);
      const count = countBy(spans);
      expect(count('afterstop.cancel.request')).toBe(runs);
      expect(stats.failedExports).toBe(0);
      expect(new Set(spans.map((s) => s.spanId)).size + stats.dropped).toBe(runs * 6);
      // 2,000 at once fit what a healthy collector takes while the burst lasts: nothing dropped.
      if (runs === 2_000) expect(stats.dropped).toBe(0);
      console.log(`OTLP, ${runs} Stops with tools: Stop markers kept ${count('afterstop.cancel.request')} of ${runs}; other spans dropped ${stats.dropped} of ${runs * 5}`);
    }, 90_000);
  }
});
