import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distModule, lastJson, runModule } from '../../../test/helpers/child.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';

/**
 * A collector that is down or hangs must not hold the app's exit: the app's work done, the process exits
 * on its own (no shutdown() called) after one bounded flush, not after every batch has timed out. (Before:
 * 5,000 runs against a hanging collector finished in 236 ms and exited after 74.7 s.) The child's own
 * time limit is the bound: 20 s, below what draining the queue through timeouts took.
 */
const INDEX = distModule('instrumentation/index.js');
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  receiver.fault = 'hang';
});
afterAll(async () => {
  receiver.fault = undefined;
  await receiver.close();
});

const app = `
  import { setup, startRun, exportStats } from ${JSON.stringify(INDEX)};
  setup({ serviceName: 'exit-test' });
  const started = Date.now();
  for (let i = 0; i < 5000; i++) {
    const run = startRun({ agentName: 'support' });
    run.cancel({ source: 'user' });
    run.end();
  }
  const workMs = Date.now() - started;
  process.on('exit', () => console.log(JSON.stringify({ workMs, exitAfterMs: Date.now() - started, stats: exportStats() })));
`;

/** A port nothing listens on: the connection is refused. */
const closedPort = async (): Promise<string> => {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
};

describe('exit with the collector in trouble', () => {
  it("a collector that refuses connections: the OTLP client's retry timers do not hold the exit, nor does a last try after it failed", async () => {
    // The OTLP client retries a refused export on timers of its own, for up to its timeout (6 s here): they
    // held the process 7.5-8.5 s after its work. Now unref'd (export/otlp-exporter.ts): the child exits on
    // its own once its work is done; its time limit (5 s, below the client's first three retries) is only
    // the upper bound. The time it took is reported (bench/collector-faults.ts has it as a ratio).
    const result = await runModule(app, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: await closedPort(), OTEL_EXPORTER_OTLP_TIMEOUT: '6000', AFTERSTOP_FLUSH_TIMEOUT_MS: '2000' }, timeoutMs: 5_000 });
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.code).toBe(0);
    const report = lastJson<{ workMs: number; exitAfterMs: number; stats: { exported: number; failedExports: number; queued: number } }>(result);
    console.log(`collector refusing: work ${report.workMs} ms, exit after ${report.exitAfterMs} ms (child ${result.durationMs} ms)`);
    // Nothing reached the collector; what was not sent stays counted as queued (the export under way was
    // still being retried when the process exited).
    expect(report.stats.exported).toBe(0);
    expect(report.stats.queued).toBeGreaterThan(0);
  }, 30_000);

  it('`await run.cancel()` with a collector that hangs: the script runs to its end (no unsettled top-level await), each cancel after the first without waiting for the collector', async () => {
    // Before: the flush's holding timer and its settling one raced; when the holding one fired first the
    // loop emptied and the awaited cancel never settled (exit 13, "unsettled top-level await", 1 run in 6),
    // and every awaited cancel waited the whole flush timeout for a collector that never answers.
    const script = `
      import { setup, startRun } from ${JSON.stringify(INDEX)};
      setup({ serviceName: 'cancel-hang' });
      const runs = Array.from({ length: 20 }, () => startRun({ agentName: 'support' }));
      const waits = [];
      for (const run of runs) {
        const t0 = Date.now();
        await run.cancel({ source: 'user' });
        waits.push(Date.now() - t0);
        run.acknowledge();
        run.end();
      }
      console.log(JSON.stringify({ done: true, waits }));
    `;
    // The flush timeout is 10 minutes: were each cancel to wait for the collector, 20 of them would outlast
    // the child's limit (20 s) many times over. The client's own timeout (500 ms) is when the first one
    // learns the collector is failing; from then on a cancel does not wait for it.
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TIMEOUT: '500', AFTERSTOP_FLUSH_TIMEOUT_MS: '600000' };
    // And with the defaults (a 2 s flush timeout, the client's 10 s): the first cancel's flush runs out of time
    // while the export is unanswered (where the two timers raced).
    const defaults = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const results = await Promise.all([env, env, defaults, defaults, defaults, defaults].map((e) => runModule(script, { env: e, timeoutMs: 20_000 })));
    for (const result of results) {
      expect(result.timedOut, result.stderr).toBe(false);
      expect(result.code, result.stderr).toBe(0);
      const { done, waits } = lastJson<{ done: boolean; waits: number[] }>(result);
      expect(done).toBe(true);
      console.log(`await run.cancel(), a collector that hangs: waits ${waits.join(', ')} ms`);
      expect(waits).toHaveLength(20);
    }
  }, 60_000);

  for (const [name, endpoint] of [['hangs', () => receiver.url]] as const) {
    it(`a collector that ${name}: the process exits on its own, promptly, after its work`, async () => {
      const result = await runModule(app, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: await endpoint(), AFTERSTOP_FLUSH_TIMEOUT_MS: '2000' }, timeoutMs: 20_000 });
      expect(result.timedOut, result.stderr).toBe(false);
      expect(result.code).toBe(0);
      const report = lastJson<{ workMs: number; exitAfterMs: number; stats: { exported: number } }>(result);
      console.log(`collector ${name}: work ${report.workMs} ms, exit after ${report.exitAfterMs} ms (child ${result.durationMs} ms)`);
      expect(report.stats.exported).toBe(0);
    }, 30_000);
  }
});
