import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FlatSpan } from '../../../analyzer/index.js';
import { distModule, lastJson, runModule, tempDir } from '../../../test/helpers/child.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';
import * as fs from 'node:fs';

/**
 * afterstop's own pipeline posting to a real OTLP/HTTP receiver. The child
 * process reads OTEL_EXPORTER_OTLP_ENDPOINT at setup, as an app would.
 * scheduledDelayMs is one minute: only the flush on cancel can bring the
 * cancel marker to the receiver before the child's next step.
 */

const INDEX = distModule('instrumentation/index.js');

let receiver: OtlpReceiver;
let cwd: string;

beforeEach(async () => {
  // Answer each export 150 ms after its body arrived: cancel() must wait for the answer.
  receiver = await startOtlpReceiver({ responseDelayMs: 150 });
  cwd = tempDir();
});

afterEach(async () => {
  await receiver.close();
  fs.rmSync(cwd, { recursive: true, force: true });
});

const named = (spans: FlatSpan[], name: string): FlatSpan[] => spans.filter((s) => s.name === name);

describe('OTLP/HTTP export to a real receiver', () => {
  it('delivers the cancel request before `await run.cancel()` resolves', async () => {
    const script = `
      import { setup, startRun, exportStats, shutdown } from ${JSON.stringify(INDEX)};
      const base = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      const { mode } = setup({ serviceName: 'otlp-http-test', scheduledDelayMs: 60000, flushTimeoutMs: 5000 });
      const run = startRun({ agentName: 'support', conversationId: 'conv-42', runId: 'run-otlp-1' });
      const call = run.startTool({ name: 'send_email', callId: 'call-1', effect: 'irreversible' });
      await run.cancel({ source: 'user', reason: 'stop pressed' });
      const afterCancel = exportStats();
      // Tell the receiver that cancel() has resolved: it logs this request in order.
      await fetch(base + '/mark', { method: 'POST' });
      call.end();
      run.end();
      await shutdown();
      console.log(JSON.stringify({ mode, afterCancel }));
    `;
    const result = await runModule(script, { cwd, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = lastJson<{ mode: string; afterCancel: { exported: number; dropped: number } }>(result);
    expect(report.mode).toBe('own');
    expect(report.afterCancel.exported).toBeGreaterThanOrEqual(1);
    expect(report.afterCancel.dropped).toBe(0);
    expect(receiver.rejected).toEqual([]);

    // The cancel marker arrived, with the attributes SEMCONV names.
    const spans = receiver.spans();
    const [request] = named(spans, 'afterstop.cancel.request');
    expect(named(spans, 'afterstop.cancel.request')).toHaveLength(1);
    expect(request!.attributes).toMatchObject({
      'afterstop.run.id': 'run-otlp-1',
      'afterstop.framework': 'manual',
      'gen_ai.conversation.id': 'conv-42',
      'gen_ai.agent.name': 'support',
      'afterstop.cancel.source': 'user',
      'afterstop.cancel.reason': 'stop pressed',
      'afterstop.inflight.tool_calls': 1,
      'afterstop.inflight.model_calls': 0,
    });
    expect(request!.attributes['afterstop.cancel.id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(request!.resource).toMatchObject({ 'service.name': 'otlp-http-test', 'afterstop.schema.version': '0.1' });
    expect(request!.scope).toBe('afterstop');
    expect(request!.startNs).toBe(request!.endNs);

    // The flush-on-cancel guarantee: the request carrying the marker came before the mark.
    const carrying = receiver.requests.find((r) => r.spans.some((s) => s.name === 'afterstop.cancel.request'));
    const mark = receiver.events.find((e) => e.path === '/mark');
    expect(carrying).toBeDefined();
    expect(mark).toBeDefined();
    expect(carrying!.seq).toBeLessThan(mark!.seq);
    expect(carrying!.contentType).toMatch(/^application\/json/);

    // Everything else arrived at shutdown, in the same trace, under the run span.
    const run = named(spans, 'invoke_agent support');
    expect(run).toHaveLength(1);
    expect(run[0]!.attributes['afterstop.run.outcome']).toBe('cancelled');
    expect(request!.parentSpanId).toBe(run[0]!.spanId);
    expect(request!.traceId).toBe(run[0]!.traceId);
    expect(named(spans, 'execute_tool send_email')).toHaveLength(1);
    expect(named(spans, 'afterstop.tool.start')).toHaveLength(1);
    expect(named(spans, 'afterstop.cancel.settle')).toHaveLength(1);
  });

  it('delivers a ghost commit before `await ctx.commit()` resolves', async () => {
    const script = `
      import { setup, startRun, shutdown } from ${JSON.stringify(INDEX)};
      const base = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      setup({ scheduledDelayMs: 60000, flushTimeoutMs: 5000 });
      const run = startRun({ runId: 'run-ghost' });
      const value = await run.tool({ name: 'charge_card', callId: 'call-ghost', effect: 'irreversible' }, async (ctx) => {
        await run.cancel({ source: 'user' });
        await fetch(base + '/mark-cancel', { method: 'POST' });
        await ctx.commit();
        await fetch(base + '/mark', { method: 'POST' });
        return 'charged';
      });
      run.end();
      await shutdown();
      console.log(JSON.stringify({ value }));
    `;
    const result = await runModule(script, { cwd, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(lastJson<{ value: string }>(result).value).toBe('charged');

    const commits = named(receiver.spans(), 'afterstop.tool.commit');
    expect(commits).toHaveLength(1);
    expect(commits[0]!.attributes).toMatchObject({
      'afterstop.cancel.state': 'requested',
      'gen_ai.tool.name': 'charge_card',
      'gen_ai.tool.call.id': 'call-ghost',
      'afterstop.tool.effect': 'irreversible',
      'afterstop.run.id': 'run-ghost',
    });
    const carrying = receiver.requests.find((r) => r.spans.some((s) => s.name === 'afterstop.tool.commit'));
    const markCancel = receiver.events.find((e) => e.path === '/mark-cancel');
    const mark = receiver.events.find((e) => e.path === '/mark');
    // Written after the cancel resolved, received before the commit resolved.
    expect(markCancel!.seq).toBeLessThan(carrying!.seq);
    expect(carrying!.seq).toBeLessThan(mark!.seq);
  });
});
