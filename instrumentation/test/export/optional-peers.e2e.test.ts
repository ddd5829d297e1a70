import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';

/**
 * The OTLP/HTTP exporter and the NodeSDK are optional peer dependencies (package.json peerDependenciesMeta):
 * loaded only when the environment asks for them, and, when the app did not install them, said once on
 * stderr with the install command while spans still reach the trace files. A package is made missing by a
 * resolve hook (test/fixtures/optional-peers/hide-packages.mjs) that has Node's own resolver look for it
 * from a folder with no node_modules: the error an app without it gets.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const hide = './test/fixtures/optional-peers/hide-packages.mjs';

/** Packages a process whose spans go to files must not load (the export path's heavy part). */
const EXPORT_PACKAGES = ['exporter-trace-otlp-http', 'otlp-exporter-base', 'otlp-transformer', 'sdk-node', 'sdk-logs', 'sdk-metrics'];

const SCRIPT = `
  import { startRun, shutdown } from 'afterstop';
  const run = startRun({ agentName: 'peers' });
  await run.cancel();
  run.end();
  await shutdown();
  const packages = new Set([...globalThis.__loadedFiles].map((url) => /node_modules\\/@opentelemetry\\/([^/]+)\\//.exec(url)?.[1]).filter(Boolean));
  console.log(JSON.stringify([...packages].sort()));
`;

function runApp(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(OTEL_|AFTERSTOP_)/.test(name)));
    const child = spawn(process.execPath, ['--import', hide, '--import', 'afterstop/register', '--input-type=module', '-e', SCRIPT], {
      cwd: root,
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const loadedPackages = (stdout: string): string[] => JSON.parse(stdout.trim().split('\n').pop() ?? '[]') as string[];

let dir: string;
let receiver: OtlpReceiver;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-peers-'));
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the export path: optional peers loaded when used', () => {
  it('spans to files (the default) load neither the OTLP exporter, its transformer, nor the NodeSDK', async () => {
    const out = await runApp({ AFTERSTOP_TRACES_DIR: dir });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    const loaded = loadedPackages(out.stdout);
    expect(loaded).toContain('instrumentation');
    expect(loaded).not.toContain('sdk-trace-base');
    expect(loaded.filter((name) => EXPORT_PACKAGES.includes(name))).toEqual([]);
    expect((await readTraces(dir)).spans.map((s) => s.name)).toContain('afterstop.cancel.request');
  });

  it('a collector configured: the OTLP exporter is loaded then, and spans reach the collector', async () => {
    const out = await runApp({ AFTERSTOP_TRACES_DIR: dir, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(loadedPackages(out.stdout)).toContain('exporter-trace-otlp-http');
    expect(receiver.spans().map((s) => s.name)).toContain('afterstop.cancel.request');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a collector configured, the OTLP exporter not installed: one stderr line with the install command, and spans in the trace files', async () => {
    const out = await runApp({ AFTERSTOP_TRACES_DIR: dir, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, AFTERSTOP_TEST_HIDE: '@opentelemetry/exporter-trace-otlp-http' });
    expect(out.status).toBe(0);
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('@opentelemetry/exporter-trace-otlp-http, which is not installed');
    expect(lines[0]).toContain('npm install @opentelemetry/exporter-trace-otlp-http');
    expect(lines[0]).toContain(`written to trace files in ${dir}`);
    expect(loadedPackages(out.stdout)).not.toContain('exporter-trace-otlp-http');
    expect(receiver.requests).toHaveLength(0);
    expect((await readTraces(dir)).spans.map((s) => s.name)).toEqual(expect.arrayContaining(['afterstop.cancel.request', 'invoke_agent peers']));
  });

  it('a variable only the NodeSDK reads, the NodeSDK not installed: one stderr line naming it with the install command, and traces recorded as ever', async () => {
    const out = await runApp({ AFTERSTOP_TRACES_DIR: dir, OTEL_PROPAGATORS: 'tracecontext', AFTERSTOP_TEST_HIDE: '@opentelemetry/sdk-node' });
    expect(out.status).toBe(0);
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('OTEL_PROPAGATORS is read by the OpenTelemetry NodeSDK, and @opentelemetry/sdk-node is not installed');
    expect(lines[0]).toContain('npm install @opentelemetry/sdk-node');
    expect(loadedPackages(out.stdout)).not.toContain('sdk-node');
    expect((await readTraces(dir)).spans.map((s) => s.name)).toEqual(expect.arrayContaining(['afterstop.cancel.request', 'invoke_agent peers']));
  });

  it('the same variable, the NodeSDK installed: it is loaded, nothing said', async () => {
    const out = await runApp({ AFTERSTOP_TRACES_DIR: dir, OTEL_PROPAGATORS: 'tracecontext' });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(loadedPackages(out.stdout)).toContain('sdk-node');
  });
});
