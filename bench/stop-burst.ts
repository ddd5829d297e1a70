import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readTraces } from '@afterstop/analyzer';
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

const INDEX = JSON.stringify(path.join(projectRoot(), 'instrumentation', 'dist', 'index.js'));

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

export interface StopBurstFigures {
  exporter: 'file' | 'otlp';
  runs: number;
  /** Stop markers made (one a run) and those that reached the files or the collector. */
  stops: number;
  stopsKept: number;
  /** The other spans made (five a run), and the spans the exporter counted as dropped (of any kind). */
  others: number;
  spansDropped: number;
  failedExports: number;
  workMs: number;
}

/** A local OTLP/HTTP collector that answers at once and counts the spans it received by name (each span id once). */
async function countingCollector(): Promise<{ url: string; count(name: string): number; close(): Promise<void> }> {
  const byName = new Map<string, Set<string>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        type Body = { resourceSpans?: { scopeSpans?: { spans?: { name: string; spanId: string }[] }[] }[] };
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
        for (const rs of body.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const span of ss.spans ?? []) {
              const ids = byName.get(span.name) ?? new Set<string>();
              ids.add(span.spanId);
              byName.set(span.name, ids);
            }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: (name) => byName.get(name)?.size ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The attack's burst: `runs` runs, each with a tool call in flight, all cancelled in the same tick; the tools
 * end 5 ms later, then every run is acknowledged and ended (6 spans a run: the run, its tool span and tool
 * start marker, the Stop marker, its ack and settle markers), to the file exporter on a healthy disk or to a
 * healthy local OTLP/HTTP collector. How many Stop markers arrived, of how many made.
 */
export async function benchStopMarkers(runs: number, exporter: 'file' | 'otlp'): Promise<StopBurstFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-burst-'));
  const collector = exporter === 'otlp' ? await countingCollector() : undefined;
  try {
    const out = await runScript<{ workMs: number; stats: { dropped: number; failedExports: number } }>(
      `
      import { setup, startRun, shutdown, exportStats } from ${INDEX};
      setup(${exporter === 'file' ? `{ exporter: 'file', tracesDir: ${JSON.stringify(dir)} }` : "{ serviceName: 'bench-burst' }"});
      const started = performance.now();
      const runs = Array.from({ length: ${runs} }, (_, i) => startRun({ agentName: 'support', conversationId: 'c' + i }));
      const tools = runs.map((r, i) => r.tool({ name: 'lookup', callId: 'k' + i }, async () => { await new Promise((res) => setTimeout(res, 5)); return i; }).catch(() => {}));
      await Promise.all(runs.map((r) => r.cancel({ source: 'user' })));
      await Promise.all(tools);
      for (const r of runs) { r.acknowledge(); r.end(); }
      const workMs = performance.now() - started;
      await shutdown();
      console.log(JSON.stringify({ workMs, stats: exportStats() }));
    `,
      { env: collector === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }, what: 'stop markers' },
    );
    let stopsKept: number;
    if (collector !== undefined) stopsKept = collector.count('afterstop.cancel.request');
    else {
      const { spans } = await readTraces(dir);
      stopsKept = new Set(spans.filter((s) => s.name === 'afterstop.cancel.request').map((s) => s.spanId)).size;
    }
    return { exporter, runs, stops: runs, stopsKept, others: runs * 5, spansDropped: out.stats.dropped, failedExports: out.stats.failedExports, workMs: out.workMs };
  } finally {
    await collector?.close();
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
