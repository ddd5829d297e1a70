import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readTraces } from '../../analyzer/index.js';

/**
 * afterstop registers the tracer provider alone unless the environment asks for what only the NodeSDK does
 * (pipeline.ts, SDK_ONLY_ENV): the app sees the same resource, sampler, context and propagation either way.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-sdk-choice-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const APP = `
  import { createRequire } from 'node:module';
  import { context, propagation, trace } from '@opentelemetry/api';
  import { startRun, shutdown } from 'afterstop';
  const run = startRun({ agentName: 'chooser' });
  const carrier = {};
  await run.tool({ name: 'lookup', effect: 'read' }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    propagation.inject(context.active(), carrier);
    trace.getTracer('app').startSpan('app span inside the tool').end();
  });
  run.end();
  await shutdown();
  const loaded = Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/@opentelemetry/sdk-node/'));
  console.log(JSON.stringify({ loaded, traceparent: carrier.traceparent ?? null }));`;

function runApp(name: string, env: Record<string, string>) {
  const traces = path.join(dir, name);
  const out = spawnSync(process.execPath, ['--import', 'afterstop/register', '--input-type=module', '-e', APP], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, OTEL_SERVICE_NAME: 'chooser-app', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test', AFTERSTOP_TRACES_DIR: traces, ...env },
  });
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  return { traces, said: JSON.parse(out.stdout.trim().split('\n').pop()!) as { loaded: boolean; traceparent: string | null } };
}

describe('the SDK afterstop registers', () => {
  it('is the tracer provider alone by default, and the NodeSDK when the environment names a metric exporter: same resource, context, propagation', async () => {
    const alone = runApp('alone', {});
    const sdk = runApp('sdk', { OTEL_METRICS_EXPORTER: 'none' });
    expect(alone.said.loaded).toBe(false);
    expect(sdk.said.loaded).toBe(true);
    for (const { traces, said } of [alone, sdk]) {
      const read = await readTraces(traces);
      const tool = read.spans.find((s) => s.name === 'execute_tool lookup')!;
      const app = read.spans.find((s) => s.name === 'app span inside the tool')!;
      // The context manager carries the tool span into the app's code; the W3C propagator writes it.
      expect(app.parentSpanId).toBe(tool.spanId);
      expect(said.traceparent).toBe(`00-${tool.traceId}-${tool.spanId}-01`);
    }
    // Each app is its own process: all but its pid the same.
    const resource = async (traces: string) => {
      const { 'process.pid': _pid, ...rest } = (await readTraces(traces)).spans[0]!.resource;
      return rest;
    };
    const aloneResource = await resource(alone.traces);
    expect(aloneResource).toEqual(await resource(sdk.traces));
    expect(aloneResource).toMatchObject({ 'service.name': 'chooser-app', 'deployment.environment.name': 'test', 'afterstop.schema.version': expect.any(String) });
    expect(Object.keys(aloneResource)).toEqual(expect.arrayContaining(['host.name', 'process.runtime.name']));
  });
});
