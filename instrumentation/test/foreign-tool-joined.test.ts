import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flush, setup, shutdown } from '../index.js';
import { detectorDisabled, detectorEnabled } from '../commit-detection.js';
import { foreignToolsFollowed } from '../foreign-tool-spans.js';
import { startSimulator, type Simulator } from '../../analyzer/simulator/index.js';

/**
 * A foreign tool span in an app that started its own OpenTelemetry SDK (2.x) before afterstop: afterstop
 * joins it, and its span processor for foreign tool calls goes into the app's provider too, so a
 * framework's `execute_tool` span there gets its commits; afterstop's shutdown takes it out again.
 */
let sim: Simulator;
let dir: string;
const appExporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter)] });
beforeAll(async () => {
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  trace.setGlobalTracerProvider(provider);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afterstop-foreign-joined-'));
  sim = await startSimulator();
  detectorEnabled();
});
afterAll(async () => {
  detectorDisabled();
  await sim.close();
  await provider.shutdown();
  trace.disable();
  context.disable();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sendEmail = (): Promise<void> =>
  trace.getTracer('gcp.vertex.agent').startActiveSpan('execute_tool send_email', async (span) => {
    await (await fetch(`${sim.url}/effects/joined_email?delayMs=5`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
    span.end();
  });

describe('a foreign tool span in the app’s own SDK provider (afterstop joined it)', () => {
  it('its POST is a commit marker under it, in the app’s provider; after afterstop’s shutdown its spans are followed no more', async () => {
    expect(setup({ tracesDir: dir }).mode).toBe('joined');
    await sendEmail();
    await flush();
    const spans = appExporter.getFinishedSpans();
    const tool = spans.find((s) => s.name === 'execute_tool send_email')!;
    const commits = spans.filter((s) => s.name === 'afterstop.tool.commit');
    expect(commits).toHaveLength(1);
    expect(commits[0]!.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
    expect(commits[0]!.attributes).toMatchObject({ 'afterstop.tool.foreign': true, 'gen_ai.tool.name': 'send_email', 'afterstop.tool.commit.evidence': 'response' });

    await shutdown();
    appExporter.reset();
    const followed = foreignToolsFollowed();
    let during = -1;
    await trace.getTracer('gcp.vertex.agent').startActiveSpan('execute_tool later', async (span) => {
      during = foreignToolsFollowed();
      span.end();
    });
    expect(during).toBe(followed);
    expect(sim.ledger.effects.filter((e) => e.name === 'joined_email')).toHaveLength(1);
  });
});
