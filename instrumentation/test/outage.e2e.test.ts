import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distModule, lastJson, runModule, tempDir, type ChildResult } from '../../test/helpers/child.js';
import { closedPort } from '../../test/helpers/otlp-receiver.js';

/**
 * A long OTLP outage: the endpoint refuses every connection while the app
 * emits 75,000 spans through the public API. The app must get all its
 * results, afterstop's memory must stay bounded (the queue drops the oldest
 * and counts), and the process must exit on its own: no timer or socket of
 * afterstop keeps it alive, and nobody calls shutdown().
 */

const INDEX = distModule('instrumentation/index.js');
const RUNS = 25_000;
/**
 * Per run: the run span, and one tool call = execute_tool span + commit marker (the call ends before the
 * next export, so its start marker is never written: deferred-markers.ts).
 */
const SPANS_PER_RUN = 3;
const TOTAL_SPANS = RUNS * SPANS_PER_RUN;
const MAX_QUEUE_SIZE = 4096;
/**
 * Generous: the bounded queue needs a few MiB. Holding all 75,000 spans of
 * this workload takes about 75 MiB of heap (measured with maxQueueSize 200,000),
 * so this bound fails if the queue stops dropping.
 */
const HEAP_GROWTH_LIMIT = 32 * 1024 * 1024;

interface Stats {
  queued: number;
  exported: number;
  dropped: number;
  failedExports: number;
}

interface Report {
  mode: string;
  completed: number;
  sum: number;
  heapStart: number;
  heapEnd: number;
  peakRssBytes: number;
  /** exportStats() right after the last call. */
  stats: Stats;
  /** exportStats() after a bounded flush (every export fails, so everything is dropped). */
  settled: Stats;
  emitMs: number;
}

const script = `
  import { setup, startRun, exportStats, flush } from ${JSON.stringify(INDEX)};
  const heap = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().heapUsed; };
  const { mode } = setup({ serviceName: 'outage-test', maxQueueSize: ${MAX_QUEUE_SIZE} });
  const heapStart = heap();
  const started = Date.now();
  let completed = 0;
  let sum = 0;
  for (let i = 0; i < ${RUNS}; i++) {
    const run = startRun({ agentName: 'outage' });
    const value = await run.tool({ name: 'lookup', effect: 'read' }, async (ctx) => {
      await ctx.commit();
      return i * 2;
    });
    run.end();
    completed++;
    sum += value;
    if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
  }
  const emitMs = Date.now() - started;
  const stats = exportStats();
  const heapEnd = heap();
  await flush(10000);
  const settled = exportStats();
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ mode, completed, sum, heapStart, heapEnd, peakRssBytes, stats, settled, emitMs }));
  // No shutdown(): the process must end by itself.
`;

let cwd: string;
let result: ChildResult;
let report: Report;

beforeAll(async () => {
  cwd = tempDir();
  const port = await closedPort();
  result = await runModule(script, {
    cwd,
    nodeArgs: ['--expose-gc'],
    timeoutMs: 110_000,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '500',
    },
  });
  report = lastJson<Report>(result);
  // The figures, for whoever reads the test log.
  console.info(
    `outage: ${TOTAL_SPANS} spans in ${report.emitMs} ms (child ran ${result.durationMs} ms); ` +
      `heap growth ${((report.heapEnd - report.heapStart) / 1048576).toFixed(1)} MiB; ` +
      `peak RSS ${(report.peakRssBytes / 1048576).toFixed(0)} MiB; stats ${JSON.stringify(report.stats)}; settled ${JSON.stringify(report.settled)}`,
  );
}, 120_000);

afterAll(() => {
  if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
});

describe('a long OTLP outage', () => {
  it('the child exits on its own, cleanly, without shutdown()', () => {
    expect(result.timedOut).toBe(false);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(report.mode).toBe('own');
    // Nothing was written to a trace folder: the OTLP exporter was chosen from the environment.
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it('every call completes with its result', () => {
    expect(report.completed).toBe(RUNS);
    expect(report.sum).toBe(RUNS * (RUNS - 1));
  });

  it('nothing is exported, the queue stays bounded, and drops are counted', () => {
    expect(report.stats.exported).toBe(0);
    expect(report.stats.dropped).toBeGreaterThan(0);
    expect(report.stats.failedExports).toBeGreaterThan(0);
    expect(report.stats.queued).toBeLessThanOrEqual(MAX_QUEUE_SIZE);
    expect(report.stats.dropped + report.stats.queued).toBeLessThanOrEqual(TOTAL_SPANS);
    // At least what could not fit in the queue was dropped.
    expect(report.stats.dropped).toBeGreaterThanOrEqual(TOTAL_SPANS - MAX_QUEUE_SIZE - 512);
  });

  it('every span is accounted for: dropped, never silently lost', () => {
    expect(report.settled.exported).toBe(0);
    expect(report.settled.queued).toBe(0);
    expect(report.settled.dropped).toBe(TOTAL_SPANS);
  });

  it('heap growth after GC stays far below what 75,000 retained spans would take', () => {
    expect(report.heapEnd - report.heapStart).toBeLessThan(HEAP_GROWTH_LIMIT);
  });
});
