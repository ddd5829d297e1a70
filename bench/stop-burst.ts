import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readTraces } from '../analyzer/index.js';
import { projectRoot, runScript } from './child.js';

/**
 * Two hostile moments for the instrumentation, each in its own process:
 * - a burst of Stops: `runs` concurrent runs cancelled at once, the file exporter, a healthy disk: how many
 *   spans and cancel requests reach the files, against how many there were (the baseline: all of them);
 * - a collector that accepts and never answers: the same burst over OTLP, nobody calls shutdown(): the time
 *   from the end of the app's work to the process's exit, beside the work itself, and the heap after GC.
 */
export interface BurstFigures {
  runs: number;
  spans: number;
  spansWritten: number;
  cancelRequests: number;
  cancelRequestsWritten: number;
  workMs: number;
  heapAfterMb: number;
}

export interface HungFigures {
  runs: number;
  workMs: number;
  exitAfterWorkMs: number;
  heapAfterGcMb: number;
}

const INDEX = JSON.stringify(path.join(projectRoot(), 'dist', 'instrumentation', 'index.js'));

export async function benchStopBurst(runs = 10_000): Promise<BurstFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-burst-'));
  try {
    const out = await runScript<{ workMs: number; heap: number }>(
      `
      import { setup, startRun, shutdown } from ${INDEX};
      setup({ exporter: 'file', tracesDir: ${JSON.stringify(dir)} });
      const started = performance.now();
      const runs = Array.from({ length: ${runs} }, (_, i) => startRun({ agentName: 'support', conversationId: 'c' + i }));
      await Promise.all(runs.map((r) => r.cancel({ source: 'user' }).then(() => { r.acknowledge(); r.end(); })));
      const workMs = performance.now() - started;
      await shutdown();
      globalThis.gc();
      console.log(JSON.stringify({ workMs, heap: process.memoryUsage().heapUsed }));
    `,
      { nodeArgs: ['--expose-gc'], what: 'stop burst' },
    );
    const { spans } = await readTraces(dir);
    const ids = (name?: string) => new Set(spans.filter((s) => name === undefined || s.name === name).map((s) => s.spanId)).size;
    // Per run: the run span, its cancel request, its ack and its settle marker.
    return { runs, spans: runs * 4, spansWritten: ids(), cancelRequests: runs, cancelRequestsWritten: ids('afterstop.cancel.request'), workMs: out.workMs, heapAfterMb: out.heap / 2 ** 20 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchHungCollector(runs = 5_000): Promise<HungFigures> {
  // A collector that takes the request and never answers.
  const hung: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    hung.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const started = Date.now();
    const out = await runScript<{ workMs: number; heap: number }>(
      `
      import { setup, startRun } from ${INDEX};
      setup({ serviceName: 'bench-hung' });
      const t0 = Date.now();
      for (let i = 0; i < ${runs}; i++) { const run = startRun({ agentName: 'support' }); run.cancel({ source: 'user' }); run.end(); }
      const workMs = Date.now() - t0;
      globalThis.gc();
      const heap = process.memoryUsage().heapUsed;
      process.on('exit', () => console.log(JSON.stringify({ workMs, heap, exitMs: Date.now() - t0 })));
    `,
      { nodeArgs: ['--expose-gc'], env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, what: 'hung collector' },
    );
    const o = out as { workMs: number; heap: number; exitMs?: number };
    return { runs, workMs: o.workMs, exitAfterWorkMs: (o.exitMs ?? Date.now() - started) - o.workMs, heapAfterGcMb: o.heap / 2 ** 20 };
  } finally {
    for (const res of hung) res.destroy();
    server.close();
  }
}
