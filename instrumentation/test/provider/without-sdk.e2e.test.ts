import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readTraces } from '../../../analyzer/index.js';

/**
 * `afterstop/register` with the OpenTelemetry SDK's trace packages impossible to load (a module hook refuses
 * them, as if they were not installed): afterstop's own provider records the run, the app's spans under the
 * tool, the resource, and propagates the tool's context.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-without-sdk-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const REFUSED = ['@opentelemetry/sdk-trace-node', '@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-trace', '@opentelemetry/sdk-node'];
const HOOK = `
  import { registerHooks } from 'node:module';
  const refused = ${JSON.stringify(REFUSED)};
  registerHooks({
    resolve(specifier, context, next) {
      if (refused.some((name) => specifier === name || specifier.startsWith(name + '/'))) throw new Error('not installed: ' + specifier);
      return next(specifier, context);
    },
  });`;

const APP = `
  import { context, propagation, trace } from '@opentelemetry/api';
  import { startRun, shutdown } from 'afterstop';
  const run = startRun({ agentName: 'lean' });
  const carrier = {};
  await run.tool({ name: 'lookup', effect: 'read' }, async () => {
    await new Promise((resolve) => setImmediate(resolve));
    propagation.inject(context.active(), carrier);
    trace.getTracer('app').startSpan('app span inside the tool').end();
  });
  await run.cancel();
  run.end();
  await shutdown();
  console.log(JSON.stringify({ traceparent: carrier.traceparent ?? null }));`;

describe('afterstop/register without the SDK trace packages', () => {
  it('records the run through its own provider', async () => {
    const out = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(HOOK)}`, '--import', 'afterstop/register', '--input-type=module', '-e', APP], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, AFTERSTOP_TRACES_DIR: dir, OTEL_SERVICE_NAME: 'lean-app', OTEL_RESOURCE_ATTRIBUTES: 'team=a%2Cb' },
    });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    const said = JSON.parse(out.stdout.trim().split('\n').pop()!) as { traceparent: string | null };
    const read = await readTraces(dir);
    const tool = read.spans.find((s) => s.name === 'execute_tool lookup')!;
    const app = read.spans.find((s) => s.name === 'app span inside the tool')!;
    expect(read.spans.map((s) => s.name)).toEqual(expect.arrayContaining(['invoke_agent lean', 'afterstop.cancel.request']));
    expect(app.parentSpanId).toBe(tool.spanId);
    expect(said.traceparent).toBe(`00-${tool.traceId}-${tool.spanId}-01`);
    expect(tool.resource).toMatchObject({ 'service.name': 'lean-app', team: 'a,b', 'process.pid': expect.any(Number), 'host.name': os.hostname() });
  });
});
