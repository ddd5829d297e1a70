import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { readTraces } from '../../analyzer/index.js';
import { exportStats, flush, setup, shutdown, startRun } from '../index.js';
import { resolveConfig } from '../pipeline.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-pipeline-'));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  await shutdown();
  trace.disable();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('configuration', () => {
  it('writes files when no OTLP endpoint is configured, and posts OTLP when one is', () => {
    expect(resolveConfig({}, {}).exporter).toBe('file');
    expect(resolveConfig({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).exporter).toBe('otlp');
    expect(resolveConfig({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).exporter).toBe('otlp');
    expect(resolveConfig({}, { OTEL_TRACES_EXPORTER: 'none' }).exporter).toBe('none');
    expect(resolveConfig({}, { AFTERSTOP_EXPORTER: 'file', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).exporter).toBe('file');
    expect(resolveConfig({ exporter: 'otlp' }, { AFTERSTOP_EXPORTER: 'file' }).exporter).toBe('otlp');
  });

  it('defaults the folder to ./afterstop-traces and reads the AFTERSTOP_* variables', () => {
    expect(resolveConfig({}, {}).tracesDir).toBe(path.resolve('afterstop-traces'));
    const config = resolveConfig({}, { AFTERSTOP_TRACES_DIR: '/tmp/x', AFTERSTOP_SETTLE_DEADLINE_MS: '250', AFTERSTOP_MAX_QUEUE_SIZE: 'lots' });
    expect(config.tracesDir).toBe('/tmp/x');
    expect(config.settleDeadlineMs).toBe(250);
    expect(config.maxQueueSize).toBe(4096); // not a number: the default, with a warning
    expect(resolveConfig({}, {}).settleDeadlineMs).toBe(5000);
    // A time past what Node's timers can wait (they would fire after 1 ms, warning on the app's stderr) is clamped.
    const long = resolveConfig({ scheduledDelayMs: 1e12, processGraceMs: 2 ** 31 }, { AFTERSTOP_FLUSH_TIMEOUT_MS: '3e9', AFTERSTOP_SETTLE_DEADLINE_MS: '1e10' });
    expect([long.flushTimeoutMs, long.settleDeadlineMs, long.scheduledDelayMs, long.processGraceMs]).toEqual([2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1]);
    expect(resolveConfig({ settleDeadlineMs: false }, {}).settleDeadlineMs).toBe(false);
  });
});

describe('beside an OpenTelemetry SDK the app already started', () => {
  it('adds its processor to it: spans reach the app exporter and the afterstop file', async () => {
    const appExporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter)] });
    trace.setGlobalTracerProvider(provider);
    const dir = tempDir();
    expect(setup({ tracesDir: dir }).mode).toBe('joined');

    const app = trace.getTracer('app').startSpan('app work');
    app.end();
    const run = startRun({ agentName: 'joined' });
    await run.cancel();
    run.end();
    await flush();

    const appNames = appExporter.getFinishedSpans().map((s) => s.name);
    expect(appNames).toEqual(expect.arrayContaining(['app work', 'afterstop.cancel.request', 'afterstop.cancel.settle', 'invoke_agent joined']));
    const fileNames = (await readTraces(dir)).spans.map((s) => s.name);
    expect(fileNames).toEqual(expect.arrayContaining(['app work', 'afterstop.cancel.request', 'invoke_agent joined']));
    expect(exportStats().exported).toBeGreaterThanOrEqual(3);

    // Reversible: after shutdown the app's provider no longer feeds afterstop.
    await shutdown();
    trace.getTracer('app').startSpan('after').end();
    expect(appExporter.getFinishedSpans().map((s) => s.name)).toContain('after');
    const before = (await readTraces(dir)).spans.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await readTraces(dir)).spans.length).toBe(before);
    await provider.shutdown();
  });

  it('adds no second OTLP exporter when the environment already points the app at a collector', async () => {
    const appExporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter)] }));
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = 'http://127.0.0.1:9';
    try {
      expect(setup().mode).toBe('joined');
      const run = startRun({});
      await run.cancel();
      run.end();
      expect(appExporter.getFinishedSpans().map((s) => s.name)).toContain('afterstop.cancel.request');
      expect(exportStats()).toEqual({ queued: 0, exported: 0, dropped: 0, failedExports: 0 });
    } finally {
      delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    }
  });
});

describe('switched off', () => {
  it('records nothing under OTEL_SDK_DISABLED, and the app still works', async () => {
    process.env['OTEL_SDK_DISABLED'] = 'true';
    try {
      expect(setup().mode).toBe('disabled');
      const run = startRun({});
      await expect(run.tool({ name: 't' }, () => 5)).resolves.toBe(5);
      await run.cancel();
      expect(run.signal.aborted).toBe(true);
      run.end();
    } finally {
      delete process.env['OTEL_SDK_DISABLED'];
    }
  });
});

describe('export stats', () => {
  it('after shutdown() are the final counts of the pipeline shut down, and reading them sets nothing up (they read 0, from a new pipeline)', async () => {
    const dir = tempDir();
    setup({ exporter: 'file', tracesDir: dir });
    for (let i = 0; i < 10; i++) {
      const run = startRun({ agentName: 'a' });
      await run.cancel({ source: 'user' });
      run.end();
    }
    await shutdown();
    // Per run: the run span and its cancel markers, every one of them written.
    const { spans } = await readTraces(dir);
    expect(exportStats()).toEqual({ queued: 0, exported: spans.length, dropped: 0, failedExports: 0 });
    expect(spans.length).toBeGreaterThanOrEqual(20);
    expect(trace.getTracerProvider().getTracer('x').startSpan('probe').isRecording()).toBe(false);
  });
});

describe('the OTLP exporter', () => {
  // The exporter loads node:http with import() at its first export; the ESM facade of a built-in reads every
  // export, and node:http's lazy ones load undici: 30-50 ms of the app's event loop mid-work. Set-up loads it.
  it("loads what its first export would load at set-up, not in the middle of the app's work", () => {
    const script = `import { setup } from 'afterstop';
setup({ exporter: 'otlp', serviceName: 'pipeline-test' });
setTimeout(() => { console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici')))); process.exit(0); }, 300);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env['PATH'] ?? '', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout.trim().split('\n').pop() ?? '[]')).toEqual(['NativeModule internal/deps/undici/undici']);
  });
});
