import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distModule, lastJson, runModule } from '../../helpers/child.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.js';

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
  it('a collector that refuses connections: no last try after the export failed, so the exit waits only for the retries of the one under way', async () => {
    // The OTLP client retries a refused export on timers that hold the process, for up to its timeout (6 s
    // here). Before: the exit flush tried again after the failure, 9.8 s after the work; the child's limit
    // of 9 s is the bound.
    const result = await runModule(app, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: await closedPort(), OTEL_EXPORTER_OTLP_TIMEOUT: '6000', AFTERSTOP_FLUSH_TIMEOUT_MS: '2000' }, timeoutMs: 9_000 });
    expect(result.timedOut, result.stderr).toBe(false);
    expect(result.code).toBe(0);
    const report = lastJson<{ workMs: number; exitAfterMs: number; stats: { exported: number; failedExports: number; queued: number } }>(result);
    console.log(`collector refusing: work ${report.workMs} ms, exit after ${report.exitAfterMs} ms (child ${result.durationMs} ms)`);
    expect(report.stats).toMatchObject({ exported: 0, failedExports: 1 });
    expect(report.stats.queued).toBeGreaterThan(0);
  }, 30_000);

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
