import { ROOT_CONTEXT, context, createContextKey, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../index.js';
import { OverlayContext } from '../overlay-context.js';
import { captureTraces, only, type TraceCapture } from '../../test/helpers/capture.js';

const A = createContextKey('test.a');
const B = createContextKey('test.b');

describe('OverlayContext', () => {
  it('reads what it set, and the base for the rest', () => {
    const base = ROOT_CONTEXT.setValue(A, 'app');
    const ctx = OverlayContext.set(base, B, 'ours');
    expect(ctx.getValue(B)).toBe('ours');
    expect(ctx.getValue(A)).toBe('app');
    expect(ctx.getValue(createContextKey('test.none'))).toBeUndefined();
  });

  it('is immutable: setting and deleting give new contexts and leave this one as it was', () => {
    const ctx = OverlayContext.set(ROOT_CONTEXT, A, 1);
    const set = ctx.setValue(A, 2).setValue(B, 3);
    const deleted = set.deleteValue(A);
    expect([ctx.getValue(A), ctx.getValue(B)]).toEqual([1, undefined]);
    expect([set.getValue(A), set.getValue(B)]).toEqual([2, 3]);
    expect([deleted.getValue(A), deleted.getValue(B)]).toEqual([undefined, 3]);
  });

  it("hides a base value it deletes or sets to undefined, as the API's context does", () => {
    const base = ROOT_CONTEXT.setValue(A, 'app').setValue(B, 'app');
    const ctx = OverlayContext.set(base, A, 'ours');
    expect(ctx.deleteValue(A).getValue(A)).toBeUndefined();
    expect(ctx.deleteValue(B).getValue(B)).toBeUndefined();
    expect(ctx.setValue(B, undefined).getValue(B)).toBeUndefined();
    expect(base.deleteValue(B).getValue(B)).toBeUndefined();
    // Deleting what is not there changes nothing.
    expect(ctx.deleteValue(createContextKey('test.none'))).toBe(ctx);
  });

  it('stays one overlay over the same base however many values are set on it', () => {
    const base = ROOT_CONTEXT.setValue(A, 'app');
    let ctx = OverlayContext.set(base, B, 0);
    for (let i = 1; i < 100; i++) ctx = ctx.setValue(B, i) as OverlayContext;
    expect(ctx).toBeInstanceOf(OverlayContext);
    expect(ctx.getValue(B)).toBe(99);
    expect((ctx as unknown as { base: unknown }).base).toBe(base);
  });

  it('sets two values in one step as two sets do, over an overlay or an API context', () => {
    for (const base of [ROOT_CONTEXT.setValue(A, 'app'), OverlayContext.set(ROOT_CONTEXT.setValue(A, 'app'), B, 'old')]) {
      const C = createContextKey('test.c');
      const two = OverlayContext.setTwo(base, B, 'b', C, undefined);
      const one = base.setValue(B, 'b').deleteValue(C);
      for (const key of [A, B, C]) expect(two.getValue(key)).toBe(one.getValue(key));
      expect(two.getValue(B)).toBe('b');
      expect(base.getValue(B)).not.toBe('b');
    }
  });

  it('carries spans for the trace API', () => {
    const span = trace.wrapSpanContext({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 });
    const ctx = trace.setSpan(OverlayContext.set(ROOT_CONTEXT, A, 1), span);
    expect(ctx).toBeInstanceOf(OverlayContext);
    expect(trace.getSpan(ctx)).toBe(span);
    expect(trace.getSpan(trace.deleteSpan(ctx))).toBeUndefined();
  });
});

describe("a run's contexts", () => {
  let capture: TraceCapture;
  beforeAll(() => {
    capture = captureTraces();
  });
  afterAll(() => capture.close());

  it("keep the app's context values inside a tool body, and take values the body sets", async () => {
    const run = await context.with(ROOT_CONTEXT.setValue(A, 'tenant-7'), async () => {
      const started = startRun({ agentName: 'ctx' });
      await started.tool({ name: 'lookup' }, async () => {
        expect(context.active().getValue(A)).toBe('tenant-7');
        await context.with(context.active().setValue(B, 'inner'), async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          expect(context.active().getValue(A)).toBe('tenant-7');
          expect(context.active().getValue(B)).toBe('inner');
        });
      });
      started.end();
      return started;
    });
    const spans = await capture.spans(run.id);
    const tool = only(spans, 'execute_tool lookup');
    expect(tool.parentSpanId).toBe(only(spans, 'invoke_agent ctx').spanId);
  });

  it("are overlays, not the API's BaseContexts (whose self-capturing closures V8's minor GC keeps, with the run and span, across a scavenge)", async () => {
    const run = startRun({ agentName: 'ctx' });
    let inBody: unknown;
    await run.tool({ name: 'lookup', detectCommits: true }, async () => {
      inBody = context.active();
    });
    const model = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    model.end();
    run.end();
    expect(inBody).toBeInstanceOf(OverlayContext);
    expect((run as unknown as { context: unknown }).context).toBeInstanceOf(OverlayContext);
    expect((model as unknown as { context: unknown }).context).toBeInstanceOf(OverlayContext);
  });

  it("parent a span the body starts on the app's tracer under the tool span", async () => {
    const run = startRun({ agentName: 'ctx' });
    await run.tool({ name: 'fetch' }, async () => {
      trace.getTracer('app').startActiveSpan('app work', (span) => span.end());
    });
    run.end();
    const tool = only(await capture.spans(run.id), 'execute_tool fetch');
    const work = only(
      (await capture.spans()).filter((s) => s.traceId === tool.traceId),
      'app work',
    );
    expect(work.parentSpanId).toBe(tool.spanId);
  });
});
