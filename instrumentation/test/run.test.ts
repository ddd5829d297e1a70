import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError, startRun, withRun } from '../index.js';
import { captureTraces, named, only, sleep, type TraceCapture } from '../../test/helpers/capture.js';

let capture: TraceCapture;
beforeAll(() => {
  capture = captureTraces({ settleDeadlineMs: 200 });
});
afterAll(() => capture.close());

describe('run span', () => {
  it('is an invoke_agent span with the common attributes and outcome completed', async () => {
    const run = startRun({ agentName: 'support', conversationId: 'conv-1', framework: 'manual' });
    run.end();
    const spans = await capture.spans(run.id);
    const span = only(spans, 'invoke_agent support');
    expect(span.parentSpanId).toBe('');
    expect(span.kind).toBe(1); // INTERNAL
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.conversation.id': 'conv-1',
      'afterstop.framework': 'manual',
      'afterstop.run.id': span.spanId,
      'afterstop.run.outcome': 'completed',
    });
    expect(run.id).toBe(span.spanId);
    expect(span.resource['afterstop.schema.version']).toBe('0.1');
    expect(span.resource['service.name']).toBe('afterstop-test');
  });

  it('takes a run id from the caller and defaults the framework to manual', async () => {
    const run = startRun({ runId: 'my-run-7' });
    run.end();
    const span = only(await capture.spans('my-run-7'), 'invoke_agent');
    expect(span.attributes['afterstop.framework']).toBe('manual');
    expect(span.attributes['gen_ai.conversation.id']).toBeUndefined();
  });

  it('ends failed with error.type and the message when the run throws', async () => {
    const run = startRun({ agentName: 'a' });
    run.end({ error: new TypeError('bad input') });
    const span = only(await capture.spans(run.id), 'invoke_agent a');
    expect(span.attributes['afterstop.run.outcome']).toBe('failed');
    expect(span.attributes['error.type']).toBe('TypeError');
    expect(span.statusCode).toBe(2);
    expect(span.statusMessage).toBe('bad input');
  });

  it('ends exactly once: later ends change nothing', async () => {
    const run = startRun({ agentName: 'once' });
    run.end();
    run.end({ outcome: 'failed', error: new Error('late') });
    const spans = named(await capture.spans(run.id), 'invoke_agent once');
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes['afterstop.run.outcome']).toBe('completed');
  });

  it('withRun passes the value and the very same error through', async () => {
    await expect(withRun({ agentName: 'w' }, async () => 7)).resolves.toBe(7);
    const boom = new Error('boom');
    await expect(withRun({ agentName: 'w' }, async () => Promise.reject(boom))).rejects.toBe(boom);
  });
});

describe('cancel', () => {
  it('writes a request marker with source, reason and what was in flight, then aborts the signal', async () => {
    const run = startRun({ agentName: 'c' });
    const tool = run.startTool({ name: 'slow' });
    const model = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    expect(run.signal.aborted).toBe(false);
    const done = run.cancel({ source: 'budget', reason: 'over budget' });
    expect(run.signal.aborted).toBe(true);
    expect(CancelledError.isInstance(run.signal.reason)).toBe(true);
    expect(run.cancelState).toBe('requested');
    await done;
    tool.end();
    model.end();
    run.end();
    const spans = await capture.spans(run.id);
    const request = only(spans, 'afterstop.cancel.request');
    const runSpan = only(spans, 'invoke_agent c');
    expect(request.parentSpanId).toBe(runSpan.spanId);
    expect(request.traceId).toBe(runSpan.traceId);
    expect(request.startNs).toBe(request.endNs);
    expect(request.attributes).toMatchObject({
      'afterstop.cancel.source': 'budget',
      'afterstop.cancel.reason': 'over budget',
      'afterstop.inflight.tool_calls': 1,
      'afterstop.inflight.model_calls': 1,
      'afterstop.run.id': run.id,
    });
    expect(typeof request.attributes['afterstop.cancel.id']).toBe('string');
    expect(runSpan.attributes['afterstop.run.outcome']).toBe('cancelled');
  });

  it('records a second cancel once, and a cancel after the end not at all', async () => {
    const run = startRun({ agentName: 'twice' });
    const first = run.cancel();
    const second = run.cancel({ source: 'timeout' });
    expect(second).toBe(first);
    await first;
    run.end();
    await run.cancel();
    const spans = await capture.spans(run.id);
    expect(named(spans, 'afterstop.cancel.request')).toHaveLength(1);
    expect(only(spans, 'afterstop.cancel.request').attributes['afterstop.cancel.source']).toBe('user');

    const ended = startRun({ agentName: 'ended' });
    ended.end();
    await ended.cancel();
    expect(ended.signal.aborted).toBe(false);
    expect(named(await capture.spans(ended.id), 'afterstop.cancel.request')).toHaveLength(0);
  });

  it('cuts the reason to 256 characters', async () => {
    const run = startRun({});
    await run.cancel({ reason: 'x'.repeat(1000) });
    run.end();
    const request = only(await capture.spans(run.id), 'afterstop.cancel.request');
    expect(request.attributes['afterstop.cancel.reason']).toBe('x'.repeat(256));
  });

  it('cuts the reason on a code point: an emoji across the 256th unit is left out whole, a lone surrogate given is replaced', async () => {
    const run = startRun({});
    await run.cancel({ reason: `${'x'.repeat(255)}😀 and more` });
    const lone = startRun({});
    await lone.cancel({ reason: 'broken \ud800 reason' });
    run.end();
    lone.end();
    const reason = only(await capture.spans(run.id), 'afterstop.cancel.request').attributes['afterstop.cancel.reason'] as string;
    expect(reason).toBe('x'.repeat(255));
    expect(only(await capture.spans(lone.id), 'afterstop.cancel.request').attributes['afterstop.cancel.reason']).toBe('broken \ufffd reason');
    // Every value written is well-formed text: JSON readers (DuckDB among them) take it.
    expect(JSON.parse(JSON.stringify(reason))).toBe(reason);
  });

  it('acknowledges once, with the same cancel id and what is still running', async () => {
    const run = startRun({});
    run.acknowledge(); // nothing to acknowledge yet: ignored
    const tool = run.startTool({ name: 't' });
    await run.cancel();
    run.acknowledge({ outcome: 'forced' });
    run.acknowledge();
    expect(run.cancelState).toBe('acknowledged');
    tool.end();
    run.end();
    const spans = await capture.spans(run.id);
    const acks = named(spans, 'afterstop.cancel.ack');
    expect(acks).toHaveLength(1);
    expect(acks[0]!.attributes).toMatchObject({
      'afterstop.cancel.id': only(spans, 'afterstop.cancel.request').attributes['afterstop.cancel.id'],
      'afterstop.cancel.outcome': 'forced',
      'afterstop.inflight.tool_calls': 1,
      'afterstop.inflight.model_calls': 0,
    });
    expect(acks[0]!.startNs).toBeGreaterThanOrEqual(only(spans, 'afterstop.cancel.request').startNs);
  });

  it('checkpoint does nothing before a cancel, then acknowledges and throws a CancelledError', async () => {
    const run = startRun({});
    expect(() => run.checkpoint()).not.toThrow();
    void run.cancel();
    let thrown: unknown;
    try {
      run.checkpoint();
    } catch (error) {
      thrown = error;
    }
    expect(CancelledError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).name).toBe('AbortError');
    expect(run.cancelState).toBe('acknowledged');
    expect(() => run.checkpoint()).toThrow();
    run.end({ error: thrown });
    const spans = await capture.spans(run.id);
    expect(named(spans, 'afterstop.cancel.ack')).toHaveLength(1);
    const runSpan = only(spans, 'invoke_agent');
    // The cancellation is the outcome, not an error of the run.
    expect(runSpan.statusCode).toBe(0);
    expect(runSpan.attributes['afterstop.run.outcome']).toBe('cancelled');
  });

  it("turns an abort of the app's own signal into a cancel request", async () => {
    const stop = new AbortController();
    const run = startRun({ signal: stop.signal });
    stop.abort('user pressed stop');
    expect(run.signal.aborted).toBe(true);
    run.end();
    const request = only(await capture.spans(run.id), 'afterstop.cancel.request');
    expect(request.attributes['afterstop.cancel.source']).toBe('user');
    expect(request.attributes['afterstop.cancel.reason']).toBe('user pressed stop');

    const timed = startRun({ signal: AbortSignal.timeout(5) });
    await sleep(30);
    timed.end();
    expect(only(await capture.spans(timed.id), 'afterstop.cancel.request').attributes['afterstop.cancel.source']).toBe('timeout');

    const already = startRun({ signal: AbortSignal.abort() });
    expect(already.cancelState).toBe('requested');
    already.end();
  });
});

describe('settle', () => {
  it('is written at once when nothing was in flight', async () => {
    const run = startRun({});
    await run.cancel();
    run.end();
    const settle = only(await capture.spans(run.id), 'afterstop.cancel.settle');
    expect(settle.attributes['afterstop.cancel.unsettled']).toBe(0);
  });

  it('waits for every child in flight at the request, and only those', async () => {
    const run = startRun({});
    const done = run.startTool({ name: 'done' });
    done.end();
    const tool = run.startTool({ name: 't' });
    const model = run.startModelCall({ provider: 'openai', model: 'gpt-4o' });
    await run.cancel();
    const late = run.startTool({ name: 'after' });
    tool.end();
    // A call started after the request that ends first settles nothing: it was not in flight at the request.
    late.end();
    expect(named(await capture.spans(run.id), 'afterstop.cancel.settle')).toHaveLength(0);
    model.end();
    const spans = await capture.spans(run.id);
    const settle = only(spans, 'afterstop.cancel.settle');
    expect(settle.attributes['afterstop.cancel.unsettled']).toBe(0);
    expect(settle.startNs).toBeGreaterThanOrEqual(only(spans, 'chat gpt-4o').endNs);
    expect(only(spans, 'afterstop.cancel.request').attributes).toMatchObject({ 'afterstop.inflight.tool_calls': 1, 'afterstop.inflight.model_calls': 1 });
    run.end();
  });

  it('is written at the deadline with the count still running', async () => {
    const run = startRun({ settleDeadlineMs: 50 });
    const hung = run.startTool({ name: 'hung' });
    await run.cancel();
    await sleep(120);
    const settle = only(await capture.spans(run.id), 'afterstop.cancel.settle');
    expect(settle.attributes['afterstop.cancel.unsettled']).toBe(1);
    hung.end();
    run.end();
    expect(named(await capture.spans(run.id), 'afterstop.cancel.settle')).toHaveLength(1);
  });

  it('is not written when switched off', async () => {
    const run = startRun({ settleDeadlineMs: false });
    await run.cancel();
    run.end();
    expect(named(await capture.spans(run.id), 'afterstop.cancel.settle')).toHaveLength(0);
  });
});

describe('the end of a cancelled run', () => {
  it('acknowledges when the run ends by its cancellation (the loop threw the abort)', async () => {
    const run = startRun({});
    await run.cancel();
    run.end({ error: run.signal.reason });
    expect(named(await capture.spans(run.id), 'afterstop.cancel.ack')).toHaveLength(1);

    const viaWithRun = withRun({}, async (r) => {
      void r.cancel();
      r.checkpoint();
    });
    await expect(viaWithRun).rejects.toThrow(CancelledError);
  });

  it('does not acknowledge a run that completed after a Stop (the loop ran on)', async () => {
    const run = startRun({});
    await run.cancel();
    run.end();
    const spans = await capture.spans(run.id);
    expect(named(spans, 'afterstop.cancel.ack')).toHaveLength(0);
    expect(only(spans, 'invoke_agent').attributes['afterstop.run.outcome']).toBe('cancelled');
  });

  it('gives a cancel asked for again from an abort listener the same, still pending, promise', async () => {
    const run = startRun({});
    let inner: Promise<void> | undefined;
    run.signal.addEventListener('abort', () => {
      inner = run.cancel({ source: 'parent' });
    });
    const outer = run.cancel();
    expect(inner).toBe(outer);
    await outer;
    run.end();
    expect(named(await capture.spans(run.id), 'afterstop.cancel.request')).toHaveLength(1);
  });
});
